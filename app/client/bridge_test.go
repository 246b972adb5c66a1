// The fake bridge needs the host build of coder/websocket (a dialer with
// an HTTP client, and Accept), so these tests run on the host only.

//go:build !js

package client

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// This file is a small fake bridge: enough of the bridge side of
// formbridge.v1 to drive the client, written with coder/websocket like the
// real gateway.

// bridgeConn is one accepted widget connection seen from the fake bridge.
type bridgeConn struct {
	t    testing.TB
	conn *websocket.Conn
}

// fakeBridge accepts widget connections and hands each to serve, in its
// own handler goroutine.
type fakeBridge struct {
	t     testing.TB
	serve func(bc *bridgeConn)

	mu    sync.Mutex
	dials []time.Time // when each connection was accepted
}

func (b *fakeBridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != wire.Path {
		http.NotFound(w, r)
		return
	}
	b.mu.Lock()
	b.dials = append(b.dials, time.Now())
	b.mu.Unlock()
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{wire.Subprotocol}})
	if err != nil {
		b.t.Errorf("accept: %v", err)
		return
	}
	defer conn.CloseNow()
	if conn.Subprotocol() != wire.Subprotocol {
		b.t.Errorf("subprotocol = %q, want %q", conn.Subprotocol(), wire.Subprotocol)
		return
	}
	b.serve(&bridgeConn{t: b.t, conn: conn})
}

func (b *fakeBridge) dialTimes() []time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]time.Time(nil), b.dials...)
}

// startBridge serves b over loopback TCP and returns the client's URL.
func startBridge(t *testing.T, b *fakeBridge) string {
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + wire.Path
}

// read returns the next frame as a JSON-RPC message.
func (bc *bridgeConn) read() (*wire.Message, error) {
	_, data, err := bc.conn.Read(context.Background())
	if err != nil {
		return nil, err
	}
	var m wire.Message
	if err := json.Unmarshal(data, &m); err != nil {
		bc.t.Errorf("widget sent a frame that is not JSON: %q", data)
		return nil, err
	}
	return &m, nil
}

func (bc *bridgeConn) send(m *wire.Message) {
	b, err := json.Marshal(m)
	if err != nil {
		bc.t.Fatalf("encode: %v", err)
	}
	// Errors are expected when the widget went away first.
	bc.conn.Write(context.Background(), websocket.MessageText, b)
}

func (bc *bridgeConn) notify(method string, params any) {
	m, err := wire.NewNotification(method, params)
	if err != nil {
		bc.t.Fatal(err)
	}
	bc.send(m)
}

func (bc *bridgeConn) request(id, method string, params any) {
	m, err := wire.NewRequest(id, method, params)
	if err != nil {
		bc.t.Fatal(err)
	}
	bc.send(m)
}

// hello reads the widget's hello and answers it: with a result when the
// token is want, else with -32001 and close 1008, as the bridge does.
func (bc *bridgeConn) hello(want string, res wire.HelloResult) (wire.HelloParams, bool) {
	m, err := bc.read()
	if err != nil {
		bc.t.Errorf("reading hello: %v", err)
		return wire.HelloParams{}, false
	}
	if m.Method != wire.MethodHello || !m.IsRequest() {
		bc.t.Errorf("first frame = %s (request %v), want a %s request", m.Method, m.IsRequest(), wire.MethodHello)
		return wire.HelloParams{}, false
	}
	var p wire.HelloParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		bc.t.Errorf("hello params: %v", err)
	}
	if p.Token != want {
		bc.send(wire.NewError(m.ID, wire.CodeUnauthorized, "unknown token", nil))
		bc.conn.Close(websocket.StatusPolicyViolation, "unauthorized")
		return p, false
	}
	r, err := wire.NewResult(m.ID, res)
	if err != nil {
		bc.t.Fatal(err)
	}
	bc.send(r)
	return p, true
}

// memNet is an in-memory network for tests in a synctest bubble, where
// loopback sockets would block outside the bubble's fake clock.
type memNet struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newMemNet() *memNet {
	return &memNet{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (n *memNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.closed:
		return nil, net.ErrClosed
	}
}

func (n *memNet) Close() error {
	n.once.Do(func() { close(n.closed) })
	return nil
}

func (n *memNet) Addr() net.Addr { return memAddr{} }

func (n *memNet) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case n.conns <- server:
		return client, nil
	case <-n.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "mem" }

// serveMem serves b on an in-memory network and points c at it. It must
// be called inside the synctest bubble; stop ends it before the bubble
// returns.
func serveMem(t *testing.T, b *fakeBridge, c *Client) (stop func()) {
	n := newMemNet()
	srv := &http.Server{Handler: b}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(n)
	}()
	tr := &http.Transport{DialContext: n.DialContext}
	hc := &http.Client{Transport: tr}
	c.opts.URL = "ws://bridge.test" + wire.Path
	c.dial = func(ctx context.Context, url string) (*websocket.Conn, error) {
		conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{
			Subprotocols: []string{wire.Subprotocol},
			HTTPClient:   hc,
		})
		return conn, err
	}
	return func() {
		srv.Close()
		n.Close()
		<-done
		tr.CloseIdleConnections()
	}
}
