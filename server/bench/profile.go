package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A trace from the CPU profile: time spent with this stack, leaf first.
type trace struct {
	d     time.Duration
	stack []string
}

// readTraces reads a profile through go tool pprof -traces, which prints
// every distinct stack with its value (args may pick the sample type);
// the profile carries its own symbols, so the binary is not needed.
func readTraces(ctx context.Context, path string, args ...string) ([]trace, error) {
	out, err := exec.CommandContext(ctx, goTool(), append(append([]string{"tool", "pprof", "-traces"}, args...), path)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof -traces: %w", err)
	}
	return parseTraces(out)
}

// parseTraces reads go tool pprof -traces' output: after a header, each
// stack between rules, its first line the value and the leaf, one frame
// a line, "(inline)" after a frame the compiler inlined.
func parseTraces(out []byte) ([]trace, error) {
	var (
		traces   []trace
		cur      *trace
		inStacks bool // past the header
	)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----------+") {
			cur, inStacks = nil, true
			continue
		}
		fields := strings.Fields(line)
		if len(fields) > 1 && fields[len(fields)-1] == "(inline)" {
			fields = fields[:len(fields)-1]
		}
		if len(fields) == 0 {
			continue
		}
		if cur == nil && len(fields) >= 2 {
			if !inStacks || strings.HasSuffix(fields[0], ":") {
				continue // the header, or a sample's label
			}
			d, err := parseValue(fields[0])
			if err != nil {
				// Skipped, its time would be missing from every share.
				return nil, fmt.Errorf("go tool pprof -traces: %q: %w", line, err)
			}
			traces = append(traces, trace{d: d, stack: []string{fields[1]}})
			cur = &traces[len(traces)-1]
			continue
		}
		if cur != nil && len(fields) == 1 {
			cur.stack = append(cur.stack, fields[0])
		}
	}
	return traces, sc.Err()
}

// parseValue reads a time as pprof writes it: a duration, "0", or hours
// as "1.50hrs", which time.ParseDuration does not know.
func parseValue(s string) (time.Duration, error) {
	if h, ok := strings.CutSuffix(s, "hrs"); ok {
		f, err := strconv.ParseFloat(h, 64)
		if err != nil {
			return 0, err
		}
		return time.Duration(f * float64(time.Hour)), nil
	}
	return time.ParseDuration(s)
}

// Where CPU time goes, by the function the sample was in (its leaf),
// first match wins.
var leafKinds = []struct{ name, match string }{
	{"lock waits and handoffs (sync.Mutex slow paths, semaphores)", "sync.(*Mutex) sync.(*RWMutex) internal/sync. runtime.semacquire runtime.semrelease runtime.lock2 runtime.unlock2 runtime.lockWithRank runtime.unlockWithRank"},
	{"system calls (socket reads and writes, epoll, futex)", "syscall. internal/runtime/syscall runtime.futex runtime.netpoll runtime.epoll runtime.usleep"},
	{"garbage collection, allocation and stack scanning", "runtime.gc runtime.mark runtime.scan runtime.greyobject runtime.mallocgc runtime.(*mspan) runtime.(*mheap) runtime.(*mcache) runtime.(*mcentral) runtime.(*gcWork) runtime.(*gcBits) runtime.findObject runtime.wbBuf runtime.bulkBarrier runtime.memclr runtime.heap runtime.spanClass runtime.tryDefer runtime.nextFree runtime.sweep runtime.(*sweepLocked) runtime.typePointers runtime.newobject runtime.growslice runtime.makeslice runtime.(*unwinder) runtime.pcvalue runtime.findfunc runtime.funcInfo runtime.copystack runtime.newstack runtime.stack runtime.adjust"},
	{"goroutine scheduling and channels", "runtime.schedule runtime.findRunnable runtime.park runtime.ready runtime.goready runtime.runq runtime.wakep runtime.mcall runtime.gopark runtime.casgstatus runtime.execute runtime.stealWork runtime.newproc runtime.gfget runtime.gfput runtime.selectgo runtime.chan runtime.send runtime.recv runtime.(*waitq) runtime.sellock runtime.selunlock runtime.goexit runtime.acquireSudog runtime.releaseSudog runtime.asyncPreempt runtime.resetspinning runtime.checkTimers"},
	{"JSON encoding and decoding", "encoding/json. reflect. strconv. unicode/utf8."},
	{"maps and hashing", "internal/runtime/maps. runtime.map aeshash runtime.memhash runtime.strhash"},
	{"contexts and timers", "context. time. runtime.nanotime runtime.walltime runtime.(*timer"},
	{"WebSocket framing (coder/websocket)", "github.com/coder/websocket"},
	{"HTTP and buffered I/O (net/http, bufio, io, net)", "net/http. bufio. net/textproto. net/url. io. net."},
	{"formbridge (hub, gateway, api, elicit, wire)", "github.com/formbridge/"},
	{"Go runtime, other (memory copies, write barriers, misc.)", "runtime. internal/"},
}

// Who the time was spent for, by the stack's outermost frames.
var sides = []struct{ name, match string }{
	{"simulated widgets (client side of the WebSocket)", "main.(*simWidget)"},
	{"bridge", ""},
}

func kindOf(leaf string) string {
	for _, k := range leafKinds {
		for m := range strings.FieldsSeq(k.match) {
			if strings.HasPrefix(leaf, m) {
				return k.name
			}
		}
	}
	return "other"
}

func sideOf(stack []string) string {
	for _, s := range sides {
		for m := range strings.FieldsSeq(s.match) {
			for _, f := range stack {
				if strings.HasPrefix(f, m) {
					return s.name
				}
			}
		}
	}
	return sides[len(sides)-1].name
}

// lockShareLimit is where this report calls the hub's locks a
// bottleneck: when waiting on them takes more than this share of the
// CPU, or of the time the requests in flight spent.
const lockShareLimit = 0.10

// lockWaits is the mutex profile of the profiled run: every wait on a
// sync.Mutex or RWMutex (and the runtime's own locks), recorded at the
// unlock that ended it, with the stack of the goroutine unlocking.
type lockWaits struct {
	path     string
	inFlight int           // requests in flight throughout (the callers)
	window   time.Duration // how long the profiled run took
}

func mutexProfilePath(c *config) string {
	return strings.TrimSuffix(c.profile, ".prof") + "-mutex.prof"
}

func writeMutexProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("mutex").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// inHub reports whether a stack passes through server/hub.
func inHub(stack []string) bool {
	return slices.ContainsFunc(stack, func(f string) bool { return strings.HasPrefix(f, "github.com/formbridge/formbridge/server/hub.") })
}

// describeProfile writes where the throughput run's CPU time went, and
// how much of it, and of the requests' time, the hub's locks took.
func describeProfile(ctx context.Context, c *config, r *report, path string, locks lockWaits) error {
	traces, err := readTraces(ctx, path)
	if err != nil {
		return err
	}
	var total, hubLocks, hubAll time.Duration
	byKind := map[string]time.Duration{}
	bySide := map[string]time.Duration{}
	byKindBridge := map[string]time.Duration{}
	for _, t := range traces {
		total += t.d
		k, s := kindOf(t.stack[0]), sideOf(t.stack)
		byKind[k] += t.d
		bySide[s] += t.d
		if s == "bridge" {
			byKindBridge[k] += t.d
		}
		if inHub(t.stack) {
			hubAll += t.d
			if k == leafKinds[0].name {
				hubLocks += t.d
			}
		}
	}
	if total == 0 {
		return fmt.Errorf("the CPU profile %s is empty", path)
	}
	waits, err := readTraces(ctx, locks.path, "-sample_index=delay")
	if err != nil {
		return err
	}
	var waitAll, waitHub time.Duration
	for _, t := range waits {
		waitAll += t.d
		if inHub(t.stack) {
			waitHub += t.d
		}
	}
	requestTime := time.Duration(locks.inFlight) * locks.window
	if requestTime <= 0 {
		return fmt.Errorf("the profiled run has no requests in flight")
	}
	pct := func(d time.Duration) string { return fmt.Sprintf("%.1f%%", 100*float64(d)/float64(total)) }
	waitPct := func(d time.Duration) string { return fmt.Sprintf("%.2g%%", 100*float64(d)/float64(requestTime)) }
	s := r.section("Where the time goes (CPU profile of the last Go API throughput run)")
	s.printf("`go tool pprof %s` (written by this run, %s of samples over both cores). Each sample is counted once, by the function it was in; the share of every sample is given.\n\n", c.profile, total.Round(time.Millisecond))
	var rows [][]string
	for _, sd := range sides {
		rows = append(rows, []string{sd.name, pct(bySide[sd.name])})
	}
	s.table([]string{"for whom", "share of CPU"}, rows)
	kinds := []string{}
	for _, k := range leafKinds {
		kinds = append(kinds, k.name)
	}
	kinds = append(kinds, "other")
	slices.SortStableFunc(kinds, func(a, b string) int { return int(byKind[b] - byKind[a]) })
	rows = nil
	for _, k := range kinds {
		rows = append(rows, []string{k, pct(byKind[k]), pct(byKindBridge[k])})
	}
	s.table([]string{"doing what", "share of CPU, all", "of which in the bridge"}, rows)
	s.printf("Under `server/hub` stacks: %s of the CPU in all, %s waiting on or handing off locks.\n\n", pct(hubAll), pct(hubLocks))
	s.printf("A goroutine waiting on a lock burns no CPU, so a lock that made requests queue would hardly show above. The same run's mutex profile (`go tool pprof -sample_index=delay %s`) records every wait on a lock, at the unlock that ends it: %s of waiting in all, %s of it on locks released in `server/hub` code, against %.0f s that the run's %d requests in flight spent (%d callers for %s): %s.\n\n",
		locks.path, fmtMS(ms(waitAll)), fmtMS(ms(waitHub)), requestTime.Seconds(), locks.inFlight, locks.inFlight, locks.window.Round(time.Millisecond), waitPct(waitHub))
	bottleneck := float64(hubLocks) > lockShareLimit*float64(total) || float64(waitHub) > lockShareLimit*float64(requestTime)
	s.printf("In a sentence: %s of the CPU went to the simulated widgets, not the bridge; the largest share goes to %s (%s), then %s (%s) and %s (%s); the hub's locks take %s of the CPU and %s of the requests' time, so they are %s the bottleneck.\n",
		pct(bySide[sides[0].name]), kinds[0], pct(byKind[kinds[0]]), kinds[1], pct(byKind[kinds[1]]), kinds[2], pct(byKind[kinds[2]]), pct(hubLocks), waitPct(waitHub), notIf(bottleneck))
	r.target("hub locks in the throughput run", fmt.Sprintf("not the bottleneck (≤ %.0f%% of CPU, ≤ %.0f%% of the requests' time spent waiting on them)", 100*lockShareLimit, 100*lockShareLimit),
		fmt.Sprintf("%s of CPU, %s of the requests' time", pct(hubLocks), waitPct(waitHub)), !bottleneck)
	return nil
}

func notIf(b bool) string {
	if b {
		return "a likely"
	}
	return "not"
}
