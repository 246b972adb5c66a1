//go:build !js

package client

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

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

// runOnline runs a client of url, with the token "secret", until the
// test ends, and waits until it is online.
func runOnline(t *testing.T, url string) {
	t.Helper()
	rec, _ := runClient(t, url)
	for _, want := range []State{StateConnecting, StateOnline} {
		if ev := rec.next(t); ev.State != want {
			t.Fatalf("event = %+v, want state %q", ev, want)
		}
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
	Predial(Options{URL: url, Token: "secret", ClientInfo: testInfo})
	Predial(Options{URL: url, Token: "secret", ClientInfo: testInfo}) // only the first call counts
	waitDials(t, b, 1)

	runOnline(t, url)
	if n := len(b.dialTimes()); n != 1 {
		t.Errorf("%d connections, want 1: the client did not use the predialed one", n)
	}
}

// silentBridge answers nothing; closed is closed once the client side
// has closed its connection.
func silentBridge(t *testing.T) (b *fakeBridge, closed chan struct{}) {
	closed = make(chan struct{})
	b = &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		bc.read() // returns once the client side closes
		close(closed)
	}}
	return b, closed
}

func TestPredialElsewhereIsClosed(t *testing.T) {
	resetEarly(t)
	other, closed := silentBridge(t)
	Predial(Options{URL: startBridge(t, other), Token: "secret", ClientInfo: testInfo})
	waitDials(t, other, 1)

	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", wire.HelloResult{Channel: "default"}); ok {
			bc.read()
		}
	}}
	rec, _ := runClient(t, startBridge(t, b))
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

// greetEarly stands in for web/connect.js: it connects to url and says
// hello, then offers the connection as the page's, greeted.
func greetEarly(t *testing.T, url string, hello []byte) {
	t.Helper()
	conn, err := dialBridge(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(t.Context(), websocket.MessageText, hello); err != nil {
		t.Fatal(err)
	}
	offerEarly(&predialed{url: url, hello: hello, conn: conn, greeted: true})
}

// offerEarly puts p, done, in Predial's place, as a page whose Predial
// has finished would have it.
func offerEarly(p *predialed) {
	p.done = make(chan struct{})
	close(p.done)
	early.Lock()
	early.started, early.p = true, p
	early.Unlock()
}

// A connection the page has said hello on is taken without a second
// hello: the next frame the bridge reads is the person's answer.
func TestGreetedConnectionIsTakenAsIs(t *testing.T) {
	resetEarly(t)
	next := make(chan *wire.Message, 1)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", wire.HelloResult{Channel: "default", Pending: 1}); !ok {
			return
		}
		bc.request("r1", wire.MethodElicit, formParams(t))
		if m, err := bc.read(); err == nil {
			next <- m
		}
		bc.read()
	}}
	url := startBridge(t, b)
	greetEarly(t, url, helloFrame("secret", testInfo))
	// The page heard hello's answer before the wasm took the connection:
	// that is when it came, not when the client read it.
	heard := time.Now().Add(-2 * time.Second)
	early.p.heard = heard

	rec, c := runClient(t, url)
	for ev := rec.next(t); ev.Request == nil; ev = rec.next(t) {
		if ev.Hello != nil && !ev.HelloAt.Equal(heard) {
			t.Errorf("HelloAt = %v, want %v, when the page heard it", ev.HelloAt, heard)
		}
	}
	if err := c.Respond("r1", wire.ElicitResult{Action: wire.ActionDecline}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-next:
		if m.Method != "" || string(m.ID) != `"r1"` {
			t.Errorf("after the page's hello the bridge read %s %s, want the answer to r1", m.Method, m.ID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge read nothing after the page's hello")
	}
	if n := len(b.dialTimes()); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// A connection the page said another hello on (a widget of another
// version) is closed, and the client connects and says its own.
func TestGreetedWithAnotherHelloIsClosed(t *testing.T) {
	resetEarly(t)
	hellos := make(chan string, 2)
	closed := make(chan struct{})
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		p, ok := bc.hello("secret", wire.HelloResult{Channel: "default"})
		hellos <- p.ClientInfo.Name
		if !ok {
			return
		}
		bc.read() // until the client side closes
		if p.ClientInfo.Name != testInfo.Name {
			close(closed)
		}
	}}
	url := startBridge(t, b)
	older := testInfo
	older.Name = "an-older-widget"
	greetEarly(t, url, helloFrame("secret", older))

	runOnline(t, url)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection greeted with another hello stays open")
	}
	// In either order: the bridge's goroutines record them.
	got := map[string]bool{<-hellos: true, <-hellos: true}
	if !got[older.Name] || !got[testInfo.Name] {
		t.Errorf("the bridge was greeted by %v, want the page's hello and the client's", got)
	}
	if n := len(b.dialTimes()); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// When the page's connection ended with the bridge refusing the token,
// the client reports that at once and does not knock again with it.
func TestRefusedPageConnectionIsFatal(t *testing.T) {
	resetEarly(t)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) { bc.hello("secret", wire.HelloResult{}) }}
	url := startBridge(t, b)
	refusal := helloRefusal([]byte(`{"jsonrpc":"2.0","id":"hello","error":{"code":-32001,"message":"unknown token"}}`))
	offerEarly(&predialed{url: url, hello: helloFrame("stale", testInfo), refused: refusal})

	rec := newRecorder()
	c := New(Options{URL: url, Token: "stale", ClientInfo: testInfo, OnEvent: rec.on})
	c.Run(t.Context()) // returns after a Fatal event
	var fatal error
	for len(rec.ch) > 0 {
		if ev := <-rec.ch; ev.Fatal != nil {
			fatal = ev.Fatal
		}
	}
	if !errors.Is(fatal, ErrUnauthorized) || !strings.Contains(fatal.Error(), "unknown token") {
		t.Errorf("fatal = %v, want ErrUnauthorized with the bridge's words", fatal)
	}
	if n := len(b.dialTimes()); n != 0 {
		t.Errorf("%d connections with a refused token, want none", n)
	}
}

// Only the bridge's refusal of our hello's token counts as one.
func TestHelloRefusal(t *testing.T) {
	for _, tt := range []struct {
		frame   string
		refused bool
	}{
		{`{"jsonrpc":"2.0","id":"hello","error":{"code":-32001,"message":"unknown token"}}`, true},
		{`{"jsonrpc":"2.0","id":"hello","error":{"code":-32603,"message":"internal error"}}`, false},
		{`{"jsonrpc":"2.0","id":"hello","result":{"channel":"default"}}`, false},
		{`{"jsonrpc":"2.0","id":"r1","error":{"code":-32001,"message":"unknown token"}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/formbridge/heartbeat"}`, false},
		{`not json`, false},
	} {
		err := helloRefusal([]byte(tt.frame))
		if (err != nil) != tt.refused || (err != nil && !errors.Is(err, ErrUnauthorized)) {
			t.Errorf("helloRefusal(%s) = %v, want refused %v", tt.frame, err, tt.refused)
		}
	}
}

// Without a token there is no hello to say: Predial opens nothing.
func TestPredialWithoutToken(t *testing.T) {
	resetEarly(t)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {}}
	Predial(Options{URL: startBridge(t, b), ClientInfo: testInfo})
	early.Lock()
	p := early.p
	early.Unlock()
	if p != nil {
		t.Error("Predial without a token started a connection")
	}
}

// A page connection refused another token (a stale link, replaced
// since) says nothing about this one: the client connects with its own.
func TestPageRefusalOfAnotherToken(t *testing.T) {
	resetEarly(t)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", wire.HelloResult{Channel: "default"}); ok {
			bc.read()
		}
	}}
	url := startBridge(t, b)
	refusal := helloRefusal([]byte(`{"jsonrpc":"2.0","id":"hello","error":{"code":-32001,"message":"unknown token"}}`))
	offerEarly(&predialed{url: url, hello: helloFrame("stale", testInfo), refused: refusal})
	runOnline(t, url)
}

// The predialed connection is taken once: after it drops, the client
// dials anew.
func TestPredialTakenOnce(t *testing.T) {
	resetEarly(t)
	var b *fakeBridge
	// again is closed once the client has said hello on a connection of
	// its own: the test ends only then, so that no hello is still being
	// read when the client goes.
	again := make(chan struct{})
	dialedAgain := sync.OnceFunc(func() { close(again) })
	b = &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", wire.HelloResult{Channel: "default"}); ok && len(b.dialTimes()) > 1 {
			dialedAgain()
			bc.read()
		}
	}}
	url := startBridge(t, b)
	Predial(Options{URL: url, Token: "secret", ClientInfo: testInfo})
	waitDials(t, b, 1)
	runOnline(t, url)
	select {
	case <-again:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d connections accepted, and no hello on a new one: the client did not dial anew", len(b.dialTimes()))
	}
}

// A predial still under way when the client's dial gives up on it is
// not left open: once it connects, it is closed.
func TestPredialLateIsClosed(t *testing.T) {
	resetEarly(t)
	b, closed := silentBridge(t)
	url := startBridge(t, b)
	hello := helloFrame("secret", testInfo)
	p := &predialed{url: url, hello: hello, done: make(chan struct{})}
	early.Lock()
	early.started, early.p = true, p
	early.Unlock()

	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the dial's time is up before the predial is done
	if conn, _, _, err := takeEarly(ctx, url, hello); conn != nil || err != nil {
		t.Fatalf("takeEarly past its time = %v, %v; want nothing", conn, err)
	}
	conn, err := dialBridge(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	p.conn = conn
	close(p.done) // the predial connects only now
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the predial that connected after the dial gave up stays open")
	}
}
