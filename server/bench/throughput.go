package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// captureFrame returns an elicitation/create frame of benchForm exactly
// as the bridge writes it to a widget.
func captureFrame(ctx context.Context) ([]byte, error) {
	b, err := startBridge(hub.Options{}, "")
	if err != nil {
		return nil, err
	}
	defer b.close()
	w, err := dialWidget(ctx, b.WS, b.Hub.DefaultToken())
	if err != nil {
		return nil, err
	}
	defer w.close()
	frames := make(chan []byte, 1)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go w.answer(wctx, func(f []byte) {
		select {
		case frames <- bytes.Clone(f):
		default:
		}
	})
	if _, err := b.Hub.Elicit(ctx, hub.DefaultChannel, benchRequester, json.RawMessage(benchForm), nil); err != nil {
		return nil, err
	}
	return <-frames, nil
}

// Throughput targets of issue 6, in settled elicitations per second.
const (
	goAPITarget   = 5000
	httpAPITarget = 3000
)

// Shape of the throughput runs: a company's worth of people, each with a
// channel and a widget open, and several callers waiting per channel.
const (
	throughputWidgets   = 1000
	callersPerChannel   = 2
	httpCallers         = 256
	throughputWindow    = 3 * time.Second
	throughputWarmup    = 500 * time.Millisecond
	throughputMaxPerRun = 200000 // a bound on count as well as on time
)

// benchThroughput settles as many elicitations as it can through the Go
// API (hub.Elicit) and through the HTTP API, with a simulated widget on
// each of throughputWidgets channels answering. The simulated widgets
// and the HTTP client share the machine with the bridge; the CPU profile
// says how much of it they take.
func benchThroughput(ctx context.Context, c *config, r *report) error {
	nw := c.n(throughputWidgets)
	if need := nw + 256; fileLimit() < 2*need {
		return fmt.Errorf("the open-file limit (%d) is too low for %d widgets", fileLimit(), nw)
	}
	b, err := startBridge(hub.Options{MaxPending: 1 << 16, RatePerMinute: 1 << 30, Timeout: time.Minute}, "")
	if err != nil {
		return err
	}
	defer b.close()
	channels, stopWidgets, err := connectWidgets(ctx, b, nw)
	defer stopWidgets()
	if err != nil {
		return err
	}

	// The floor: the same frame and answer bytes over bare coder/websocket
	// connections, one per widget, with the same widget code answering.
	frame, err := captureFrame(ctx)
	if err != nil {
		return err
	}
	e, err := startEcho()
	if err != nil {
		return err
	}
	defer e.close()
	floorConns := make([]*websocket.Conn, nw)
	fctx, stopFloor := context.WithCancel(ctx)
	defer stopFloor()
	for i := range floorConns {
		w, s, err := e.dial(ctx)
		if err != nil {
			return fmt.Errorf("floor connection %d: %w", i, err)
		}
		defer w.c.CloseNow()
		floorConns[i] = s
		go w.answer(fctx, nil)
	}

	var goRates, httpRates, floorRates samples
	prof, err := os.Create(c.profile)
	if err != nil {
		return err
	}
	defer prof.Close()
	var locks lockWaits
	for run := range c.runs {
		// The profiles cover the last Go API run, when everything is
		// warm: CPU, and every wait on a lock (a waiting goroutine
		// burns no CPU, so the CPU profile cannot show a lock that
		// serializes requests).
		last := run == c.runs-1
		if last {
			if err := pprof.StartCPUProfile(prof); err != nil {
				return err
			}
			runtime.SetMutexProfileFraction(1)
		}
		start := time.Now()
		rate, err := goAPIRun(ctx, b, channels)
		if last {
			pprof.StopCPUProfile()
			runtime.SetMutexProfileFraction(0)
			locks = lockWaits{path: mutexProfilePath(c), inFlight: len(channels) * callersPerChannel, window: time.Since(start)}
			if werr := writeMutexProfile(locks.path); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			return fmt.Errorf("Go API run %d: %w", run, err)
		}
		goRates = append(goRates, rate)
		rate, err = httpAPIRun(ctx, b, channels)
		if err != nil {
			return fmt.Errorf("HTTP API run %d: %w", run, err)
		}
		httpRates = append(httpRates, rate)
		rate, err = measureRate(ctx, nw, func(ctx context.Context, i int) error {
			_, err := roundTrip(ctx, floorConns[i], frame)
			return err
		})
		if err != nil {
			return fmt.Errorf("floor run %d: %w", run, err)
		}
		floorRates = append(floorRates, rate)
	}

	s := r.section("Throughput")
	s.printf("%d channels, each with one simulated widget connected over WebSocket that accepts every request; %d runs of %s each (after %s to warm up), Go API, HTTP API and the floor in turn. ",
		nw, c.runs, throughputWindow, throughputWarmup)
	s.printf("Go API: %d callers per channel in `hub.Elicit`. HTTP API: %d keep-alive clients posting `POST /api/v1/channels/{channel}/elicitations` round-robin over the channels. ", callersPerChannel, httpCallers)
	s.printf("The widgets and the HTTP clients run in the bridge's process, on the same cores: the bridge has less than the whole machine. ")
	s.printf("Floor: %d bare coder/websocket connections, each with one create frame (%d bytes) out and the same widget code's answer back at a time, as fast as they go, in the same runs.\n\n", nw, len(frame))
	s.table([]string{"settled elicitations per second", "median", "slowest run", "share of the floor (medians)", "target"}, [][]string{
		{"Go API", fmt.Sprintf("%.0f", goRates.median()), fmt.Sprintf("%.0f", goRates.min()), fmtRatio(goRates.median() / floorRates.median()), fmt.Sprintf("≥ %d", goAPITarget)},
		{"HTTP API", fmt.Sprintf("%.0f", httpRates.median()), fmt.Sprintf("%.0f", httpRates.min()), fmtRatio(httpRates.median() / floorRates.median()), fmt.Sprintf("≥ %d", httpAPITarget)},
		{"floor: raw WebSocket round trips", fmt.Sprintf("%.0f", floorRates.median()), fmt.Sprintf("%.0f", floorRates.min()), "1.00", ""},
	})
	r.target(fmt.Sprintf("throughput, Go API, %d widgets", nw), fmt.Sprintf("≥ %d/s", goAPITarget), fmt.Sprintf("%.0f/s (slowest run %.0f/s)", goRates.median(), goRates.min()), goRates.median() >= goAPITarget)
	r.target(fmt.Sprintf("throughput, HTTP API, %d widgets", nw), fmt.Sprintf("≥ %d/s", httpAPITarget), fmt.Sprintf("%.0f/s (slowest run %.0f/s)", httpRates.median(), httpRates.min()), httpRates.median() >= httpAPITarget)
	prof.Close()
	return describeProfile(ctx, c, r, c.profile, locks)
}

// connectWidgets makes n channels, each with one answering widget.
func connectWidgets(ctx context.Context, b *bridge, n int) ([]string, func(), error) {
	wctx, cancel := context.WithCancel(ctx)
	var (
		mu       sync.Mutex
		widgets  []*simWidget
		channels []string
		wg       sync.WaitGroup
		firstErr error
	)
	stop := func() {
		cancel()
		mu.Lock()
		for _, w := range widgets {
			w.c.CloseNow()
		}
		mu.Unlock()
		wg.Wait()
	}
	sem := make(chan struct{}, 32)
	for range n {
		ch, err := b.Hub.CreateChannel("")
		if err != nil {
			return channels, stop, err
		}
		channels = append(channels, ch.Name)
		sem <- struct{}{}
		wg.Go(func() {
			dctx, dcancel := context.WithTimeout(wctx, 10*time.Second)
			w, err := dialWidget(dctx, b.WS, ch.Token)
			dcancel()
			<-sem // at most cap(sem) handshakes at once
			mu.Lock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				return
			}
			widgets = append(widgets, w)
			mu.Unlock()
			w.answer(wctx, nil)
		})
	}
	// Wait for every hello: dialWidget returns after it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		done, err := len(widgets), firstErr
		mu.Unlock()
		if err != nil {
			return channels, stop, err
		}
		if done == n {
			return channels, stop, nil
		}
		if time.Now().After(deadline) {
			return channels, stop, fmt.Errorf("only %d of %d widgets connected in time", done, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// measureRate runs callers until the window ends and returns settled
// elicitations per second inside the window, after the warm-up.
func measureRate(ctx context.Context, callers int, call func(ctx context.Context, i int) error) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, throughputWarmup+throughputWindow+10*time.Second)
	defer cancel()
	var (
		counting atomic.Bool
		stopped  atomic.Bool
		count    atomic.Int64
		firstErr atomic.Pointer[error]
		wg       sync.WaitGroup
	)
	for i := range callers {
		wg.Go(func() {
			for !stopped.Load() {
				if err := call(ctx, i); err != nil {
					if !stopped.Load() {
						firstErr.CompareAndSwap(nil, &err)
					}
					return
				}
				if counting.Load() && count.Add(1) >= throughputMaxPerRun {
					stopped.Store(true)
				}
			}
		})
	}
	time.Sleep(throughputWarmup)
	counting.Store(true)
	start := time.Now()
	t := time.NewTimer(throughputWindow)
	for done := false; !done; {
		select {
		case <-t.C:
			done = true
		case <-ctx.Done():
			done = true
		case <-time.After(20 * time.Millisecond):
			done = stopped.Load() || firstErr.Load() != nil
		}
	}
	n := count.Load()
	elapsed := time.Since(start)
	stopped.Store(true)
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return 0, *p
	}
	return float64(n) / elapsed.Seconds(), nil
}

func goAPIRun(ctx context.Context, b *bridge, channels []string) (float64, error) {
	params := json.RawMessage(benchForm)
	return measureRate(ctx, len(channels)*callersPerChannel, func(ctx context.Context, i int) error {
		res, err := b.Hub.Elicit(ctx, channels[i%len(channels)], benchRequester, params, nil)
		if err != nil {
			return err
		}
		if res.Action != wire.ActionAccept {
			return fmt.Errorf("unexpected result %+v", res)
		}
		return nil
	})
}

func httpAPIRun(ctx context.Context, b *bridge, channels []string) (float64, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: httpCallers, MaxConnsPerHost: httpCallers, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	body := []byte(`{"params":` + benchForm + `,"requester":{"name":"bench-server","title":"Release Desk","version":"1.0"}}`)
	var next atomic.Uint64
	return measureRate(ctx, httpCallers, func(ctx context.Context, _ int) error {
		ch := channels[next.Add(1)%uint64(len(channels))]
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.URL+"/api/v1/channels/"+ch+"/elicitations", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+b.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		var res wire.ElicitResult
		err = json.NewDecoder(resp.Body).Decode(&res)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil || res.Action != wire.ActionAccept {
			return fmt.Errorf("HTTP %d, %+v, %v", resp.StatusCode, res, err)
		}
		return nil
	})
}
