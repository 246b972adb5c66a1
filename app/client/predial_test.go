//go:build !js

package client

import (
	"context"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// resetEarly forgets any predial, as a fresh page would start, now and
// once the test ends.
func resetEarly(t *testing.T) {
	reset := func() {
		early.Lock()
		early.started, early.p = false, nil
		early.Unlock()
	}
	reset()
	t.Cleanup(reset)
}

// waitDials waits until b has accepted n connections.
func waitDials(t *testing.T, b *fakeBridge, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(b.dialTimes()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections accepted, want %d", len(b.dialTimes()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Not parallel: Predial is once per page, so it is package state.
func TestPredialIsTakenByTheClient(t *testing.T) {
	resetEarly(t)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", wire.HelloResult{Channel: "default"}); ok {
			bc.read() // hold the connection until the client leaves
		}
	}}
	url := startBridge(t, b)
	Predial(url)
	Predial(url) // only the first call counts
	waitDials(t, b, 1)

	rec := newRecorder()
	c := New(Options{URL: url, Token: "secret", ClientInfo: testInfo, OnEvent: rec.on})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go c.Run(ctx)
	for _, want := range []State{StateConnecting, StateOnline} {
		if ev := rec.next(t); ev.State != want {
			t.Fatalf("event = %+v, want state %q", ev, want)
		}
	}
	if n := len(b.dialTimes()); n != 1 {
		t.Errorf("%d connections, want 1: the client did not use the predialed one", n)
	}
}

func TestPredialElsewhereIsClosed(t *testing.T) {
	resetEarly(t)
	closed := make(chan struct{})
	other := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		bc.read() // returns once the client side closes
		close(closed)
	}}
	Predial(startBridge(t, other))
	waitDials(t, other, 1)

	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", wire.HelloResult{Channel: "default"}); ok {
			bc.read()
		}
	}}
	rec := newRecorder()
	c := New(Options{URL: startBridge(t, b), Token: "secret", ClientInfo: testInfo, OnEvent: rec.on})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go c.Run(ctx)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection predialed to another bridge stays open")
	}
	for _, want := range []State{StateConnecting, StateOnline} {
		if ev := rec.next(t); ev.State != want {
			t.Fatalf("event = %+v, want state %q", ev, want)
		}
	}
}
