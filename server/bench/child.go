package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The idle widgets of the capacity run live in a child process (this
// program again), so the bridge's resident memory is its own and each
// side needs only one file descriptor per connection.
const (
	childEnv        = "FORMBRIDGE_BENCH_CHILD"   // "widgets", or "capacity" for one capacity measurement
	childMeasureEnv = "FORMBRIDGE_BENCH_MEASURE" // with "capacity": idle, idle-floor, pending, submit
	childURLEnv     = "FORMBRIDGE_BENCH_URL"
	childTokenEnv   = "FORMBRIDGE_BENCH_TOKEN"
	childCountEnv   = "FORMBRIDGE_BENCH_COUNT"
	childRawEnv     = "FORMBRIDGE_BENCH_RAW" // "1": bare WebSocket connections, no hello (the floor)
	childLifetime   = 2 * time.Minute        // the child ends by itself even if the parent forgets it
	childReady      = "ready"
)

func isChild() bool { return os.Getenv(childEnv) == "widgets" || os.Getenv(childEnv) == "capacity" }

// runChild connects the widgets, says "ready N" on standard output once
// every hello is answered, keeps reading (so pings are answered) until
// standard input closes or its lifetime ends, then exits.
func runChild() {
	raiseFileLimit()
	if os.Getenv(childEnv) == "capacity" {
		runCapacityChild()
		return
	}
	n, _ := strconv.Atoi(os.Getenv(childCountEnv))
	url, token := os.Getenv(childURLEnv), os.Getenv(childTokenEnv)
	ctx, cancel := context.WithTimeout(context.Background(), childLifetime)
	defer cancel()
	go func() {
		bufio.NewReader(os.Stdin).ReadString('\n') // EOF when the parent is done
		cancel()
	}()
	var (
		connected atomic.Int64
		failed    atomic.Pointer[error]
		wg        sync.WaitGroup
		sem       = make(chan struct{}, 64)
	)
	for range n {
		sem <- struct{}{}
		if ctx.Err() != nil || failed.Load() != nil {
			break
		}
		wg.Go(func() {
			dctx, dcancel := context.WithTimeout(ctx, 20*time.Second)
			var w *simWidget
			var err error
			if os.Getenv(childRawEnv) == "1" {
				w, err = dialRaw(dctx, url)
			} else {
				w, err = dialWidget(dctx, url, token)
			}
			dcancel()
			<-sem
			if err != nil {
				failed.CompareAndSwap(nil, &err)
				return
			}
			connected.Add(1)
			defer w.c.CloseNow()
			w.answer(ctx, nil) // idle: only heartbeats arrive
		})
	}
	if p := failed.Load(); p != nil {
		fmt.Printf("failed after %d: %v\n", connected.Load(), *p)
		os.Exit(1)
	}
	for connected.Load() < int64(n) && ctx.Err() == nil && failed.Load() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if p := failed.Load(); p != nil {
		fmt.Printf("failed after %d: %v\n", connected.Load(), *p)
		os.Exit(1)
	}
	fmt.Printf("%s %d\n", childReady, connected.Load())
	<-ctx.Done()
	os.Exit(0) // the connections close with the process
}
