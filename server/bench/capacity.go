package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// Capacity targets of issue 6.
const (
	idleWidgets       = 10000
	idleBytesTarget   = 16 << 10 // per connection
	pendingRequests   = 100000
	pendingMBTarget   = 500 // MB (10^6 bytes) for pendingRequests
	capacityMaxRuns   = 3   // each run opens idleWidgets connections
	capacitySettle    = time.Second
	capacityRunBounds = 2 * time.Minute
)

// benchCapacity measures the bridge's own resident memory (VmRSS of this
// process) before and after idle widgets connect, and before and after
// pending requests are held.
func benchCapacity(ctx context.Context, c *config, r *report) error {
	runs := min(c.runs, capacityMaxRuns)
	nw, np := c.n(idleWidgets), c.n(pendingRequests)
	if fileLimit() < nw+256 {
		return fmt.Errorf("the open-file limit (%d) is too low for %d idle widgets", fileLimit(), nw)
	}
	var perWidget, goroutines, perFloor, floorGoroutines, perPending, pendingTotal, perSubmit, submitTotal, callerStacks samples
	for run := range runs {
		per, g, err := measureFresh(ctx, "idle", nw)
		if err != nil {
			return fmt.Errorf("idle widgets, run %d: %w", run, err)
		}
		perWidget = append(perWidget, per)
		goroutines = append(goroutines, g)
		per, g, err = measureFresh(ctx, "idle-floor", nw)
		if err != nil {
			return fmt.Errorf("idle floor, run %d: %w", run, err)
		}
		perFloor = append(perFloor, per)
		floorGoroutines = append(floorGoroutines, g)
		per, stack, err := measureFresh(ctx, "pending", np)
		if err != nil {
			return fmt.Errorf("pending requests, run %d: %w", run, err)
		}
		perPending = append(perPending, per)
		callerStacks = append(callerStacks, stack)
		pendingTotal = append(pendingTotal, per*pendingRequests/1e6)
		per, _, err = measureFresh(ctx, "submit", np)
		if err != nil {
			return fmt.Errorf("pending requests through Submit, run %d: %w", run, err)
		}
		perSubmit = append(perSubmit, per)
		submitTotal = append(submitTotal, per*pendingRequests/1e6)
	}
	s := r.section("Capacity")
	s.printf("Resident memory of the bridge's own process (VmRSS from /proc/self/status), after a garbage collection that returns free memory to the system, before and after; %d runs, each measurement in a fresh process (this program again), as a bridge starts: the runtime keeps every goroutine it ever ran for reuse, so one run's goroutines would be free for the next. ", runs)
	s.printf("Idle widgets: %d simulated widgets connect from a child process and say hello, then stay idle; the reference is as many bare coder/websocket connections to a plain server that accepts them with the gateway's options and keeps one goroutine reading each (not a floor: the gateway can, and does, hold a connection more leanly than that). ", nw)
	s.printf("Pending requests: %d requests (the small form of the other benchmarks) with no widget connected, held two ways: Go API callers blocked in `hub.Elicit`, whose goroutines are counted, and `hub.Submit` with a callback, as the HTTP API holds them (its handler's goroutine is net/http's, not counted here). ", np)
	s.printf("A blocked caller keeps the stack its call grew to (Go starts a goroutine at 2 KiB, or more after a collection that saw deep stacks, and halves a stack only when under a quarter of it is in use, counting 800 bytes of headroom), so the hub keeps all of Elicit's path within 2 KiB (TestElicitStack in server/hub); the stack row says how much of the figure is the callers' stacks (the runtime's StackInuse before and after).\n\n")
	s.table([]string{"", "median", "largest", "target"}, [][]string{
		{"resident memory per idle widget", kib(perWidget.median()), kib(perWidget.quantile(1)), kib(idleBytesTarget)},
		{"goroutines per idle widget", fmt.Sprintf("%.2f", goroutines.median()), fmt.Sprintf("%.2f", goroutines.quantile(1)), ""},
		{"reference: resident memory per bare WebSocket connection", kib(perFloor.median()), kib(perFloor.quantile(1)), ""},
		{"reference: goroutines per bare connection", fmt.Sprintf("%.2f", floorGoroutines.median()), fmt.Sprintf("%.2f", floorGoroutines.quantile(1)), ""},
		{"ratio widget / reference (medians)", fmtRatio(perWidget.median() / perFloor.median()), "", ""},
		{"resident memory per pending request, hub.Elicit", kib(perPending.median()), kib(perPending.quantile(1)), ""},
		{"of which the caller's goroutine stack", kib(callerStacks.median()), kib(callerStacks.quantile(1)), ""},
		{fmt.Sprintf("%d pending requests, hub.Elicit", pendingRequests), fmt.Sprintf("%.0f MB", pendingTotal.median()), fmt.Sprintf("%.0f MB", pendingTotal.quantile(1)), fmt.Sprintf("%d MB", pendingMBTarget)},
		{"resident memory per pending request, hub.Submit", kib(perSubmit.median()), kib(perSubmit.quantile(1)), ""},
		{fmt.Sprintf("%d pending requests, hub.Submit", pendingRequests), fmt.Sprintf("%.0f MB", submitTotal.median()), fmt.Sprintf("%.0f MB", submitTotal.quantile(1)), fmt.Sprintf("%d MB", pendingMBTarget)},
	})
	if np != pendingRequests {
		s.printf("Counts were scaled: the %d-request figure is the measured cost per request times %d.\n\n", pendingRequests, pendingRequests)
	}
	r.target(fmt.Sprintf("%d idle widgets", nw), "≤ "+kib(idleBytesTarget)+" RSS each", fmt.Sprintf("%s each (bare WebSocket server %s, %s×)", kib(perWidget.median()), kib(perFloor.median()), fmtRatio(perWidget.median()/perFloor.median())), perWidget.median() <= idleBytesTarget)
	r.target(fmt.Sprintf("%d pending elicitations, Go API callers blocked in hub.Elicit", pendingRequests), fmt.Sprintf("≤ %d MB", pendingMBTarget), fmt.Sprintf("%.0f MB, of which the callers' goroutine stacks %.0f MB", pendingTotal.median(), callerStacks.median()*pendingRequests/1e6), pendingTotal.median() <= pendingMBTarget)
	r.target(fmt.Sprintf("%d pending elicitations, held by hub.Submit (the HTTP API's way)", pendingRequests), fmt.Sprintf("≤ %d MB", pendingMBTarget), fmt.Sprintf("%.0f MB", submitTotal.median()), submitTotal.median() <= pendingMBTarget)
	return nil
}

func kib(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }

// settledRSS collects garbage, gives free pages back and reads VmRSS.
func settledRSS() (int64, error) {
	runtime.GC()
	debug.FreeOSMemory()
	return rss()
}

// capacityResult is what a capacity child writes on standard output.
type capacityResult struct {
	Per, Extra float64
}

// measureFresh runs one of idleRun and pendingRun in a new process (this
// program again, childEnv "capacity", childMeasureEnv naming which) and
// returns its two figures: the Go runtime never frees a goroutine's
// descriptor (some 550 bytes) but keeps it for the next goroutine, so a
// measurement after another that ran many goroutines would not pay for
// its own.
func measureFresh(ctx context.Context, kind string, n int) (float64, float64, error) {
	ctx, cancel := context.WithTimeout(ctx, capacityRunBounds+30*time.Second)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"=capacity", childMeasureEnv+"="+kind, childCountEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("%s in a new process: %w", kind, err)
	}
	var res capacityResult
	if err := json.Unmarshal(out, &res); err != nil {
		return 0, 0, fmt.Errorf("%s in a new process: %q: %w", kind, out, err)
	}
	return res.Per, res.Extra, nil
}

// runCapacityChild is measureFresh's process.
func runCapacityChild() {
	n, err := strconv.Atoi(os.Getenv(childCountEnv))
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "bench: capacity child: bad count %q\n", os.Getenv(childCountEnv))
		os.Exit(1)
	}
	ctx := context.Background()
	var res capacityResult
	switch kind := os.Getenv(childMeasureEnv); kind {
	case "idle", "idle-floor":
		res.Per, res.Extra, err = idleRun(ctx, n, kind == "idle-floor")
	case "pending", "submit":
		res.Per, res.Extra, err = pendingRun(ctx, n, kind == "submit")
	default:
		err = fmt.Errorf("unknown measurement %q", kind)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: capacity child: %v\n", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(res)
}

// idleRun returns the resident bytes and goroutines one idle widget
// adds to the bridge, or with floor, one bare connection to a bare server.
func idleRun(ctx context.Context, n int, floor bool) (float64, float64, error) {
	ctx, cancel := context.WithTimeout(ctx, capacityRunBounds)
	defer cancel()
	var url, token, raw string
	var stop func()
	if floor {
		e, err := startIdleFloor()
		if err != nil {
			return 0, 0, err
		}
		url, raw, stop = e.url, "1", e.close
	} else {
		b, err := startBridge(hub.Options{MaxWidgets: n + 1}, "")
		if err != nil {
			return 0, 0, err
		}
		url, token, stop = b.WS, b.Hub.DefaultToken(), b.close
	}
	closed := false
	defer func() {
		if !closed {
			stop()
		}
	}()
	before, err := settledRSS()
	if err != nil {
		return 0, 0, err
	}
	g0 := runtime.NumGoroutine()
	exe, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"=widgets", childURLEnv+"="+url, childTokenEnv+"="+token, childCountEnv+"="+strconv.Itoa(n), childRawEnv+"="+raw)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
		// The next measurement starts once every connection's goroutine
		// has ended: goroutines still ending would skew its memory, and
		// their deep stacks the size new goroutines start at.
		for deadline := time.Now().Add(capacitySettle * 10); runtime.NumGoroutine() > g0 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("the widgets' process: %q %v", strings.TrimSpace(line), err)
	}
	if err := checkReady(line, n); err != nil {
		return 0, 0, err
	}
	time.Sleep(capacitySettle) // let the hello timers and writers finish
	after, err := settledRSS()
	if err != nil {
		return 0, 0, err
	}
	g1 := runtime.NumGoroutine()
	// The server closes first, so the ports in TIME_WAIT are its own and
	// the next run's widgets find free ones.
	stop()
	closed = true
	return float64(after-before) / float64(n), float64(g1-g0) / float64(n), nil
}

// checkReady accepts the widgets' process's line only if all n of them
// connected: it says "ready" with fewer when its lifetime ends first, and
// the memory of fewer widgets divided by n would be too little.
func checkReady(line string, n int) error {
	var got int
	if _, err := fmt.Sscanf(line, childReady+" %d", &got); err != nil || got != n {
		return fmt.Errorf("the widgets' process: %q, want %s %d", strings.TrimSpace(line), childReady, n)
	}
	return nil
}

// pendingRun returns the resident bytes one pending request costs, held
// by a blocked hub.Elicit or, with submit, by hub.Submit's callback, and
// how much of that is goroutine stacks (the callers' own, for Elicit).
func pendingRun(ctx context.Context, n int, submit bool) (perRequest, perStack float64, err error) {
	h := hub.New(&hub.Options{MaxPending: n + 1, RatePerMinute: 1 << 30, Timeout: 10 * time.Minute})
	defer h.Close()
	before, err := settledRSS()
	if err != nil {
		return 0, 0, err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	stackBefore := ms.StackInuse
	ctx, cancel := context.WithTimeout(ctx, capacityRunBounds)
	defer cancel()
	params := json.RawMessage(benchForm)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for range n {
		if submit {
			wg.Add(1)
			h.Submit(ctx, hub.DefaultChannel, benchRequester, params, nil, func(*wire.ElicitResult, error) { wg.Done() })
		} else {
			wg.Go(func() { h.Elicit(ctx, hub.DefaultChannel, benchRequester, params, nil) })
		}
	}
	// A widget that attaches gets every pending request as its backlog:
	// that says when all n are held.
	for {
		s, err := h.Attach(hub.DefaultChannel, &hub.AttachOptions{Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}}}})
		if err != nil {
			return 0, 0, err
		}
		held := s.Backlog()
		s.Close()
		if held >= n {
			break
		}
		if ctx.Err() != nil {
			return 0, 0, fmt.Errorf("only %d of %d requests pending in time", held, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Another collection, as a running bridge's periodic ones: it
	// shrinks any stack grown well past what its goroutine now uses.
	runtime.GC()
	after, err := settledRSS()
	if err != nil {
		return 0, 0, err
	}
	runtime.ReadMemStats(&ms)
	return float64(after-before) / float64(n), (float64(ms.StackInuse) - float64(stackBefore)) / float64(n), nil
}
