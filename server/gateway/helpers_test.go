package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
)

const token = "widget-token-for-tests"

const nameForm = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","minLength":2}},"required":["name"]}}`

var requester = wire.Implementation{Name: "test-server", Title: "Test Server", Version: "1.0"}

type bridge struct {
	h   *hub.Hub
	gw  http.Handler
	url string // ws://127.0.0.1:port/ws
}

type bridgeOptions struct {
	hub       hub.Options
	gateway   gateway.Options
	hello     time.Duration
	heartbeat time.Duration
	maxUnauth int // 0 = gateway.MaxUnauthenticated
}

func start(t testing.TB, o *bridgeOptions) *bridge {
	t.Helper()
	if o == nil {
		o = &bridgeOptions{}
	}
	if o.hub.DefaultToken == "" {
		o.hub.DefaultToken = token
	}
	if o.hub.ServerInfo.Name == "" {
		o.hub.ServerInfo = wire.Implementation{Name: "formbridge", Version: "test"}
	}
	if o.hello == 0 {
		o.hello = gateway.HelloTimeout
	}
	if o.heartbeat == 0 {
		o.heartbeat = time.Hour // out of the way unless a test wants it
	}
	h := hub.New(&o.hub)
	mux := http.NewServeMux()
	gw := gateway.NewWithTimers(h, &o.gateway, o.hello, o.heartbeat)
	if o.maxUnauth > 0 {
		gateway.SetMaxUnauthenticated(gw, o.maxUnauth)
	}
	mux.Handle(wire.Path, gw)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &bridge{h: h, gw: gw, url: "ws" + strings.TrimPrefix(srv.URL, "http") + wire.Path}
}

type client struct {
	t testing.TB
	c *websocket.Conn
}

// dial connects like the widget does: subprotocol formbridge.v1.
func dial(t testing.TB, b *bridge) *client {
	t.Helper()
	c, err := dialWith(t, b.url, &websocket.DialOptions{Subprotocols: []string{wire.Subprotocol}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return c
}

func dialWith(t testing.TB, url string, opts *websocket.DialOptions) (*client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		if resp != nil {
			return nil, &dialError{status: resp.StatusCode, err: err}
		}
		return nil, err
	}
	c.SetReadLimit(wire.MaxFrameBytes)
	t.Cleanup(func() { c.CloseNow() })
	return &client{t: t, c: c}, nil
}

type dialError struct {
	status int
	err    error
}

func (e *dialError) Error() string { return e.err.Error() }

func (c *client) send(frame string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *client) sendJSON(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(b))
}

// recvRaw reads one frame; a read that takes 10 s fails the test rather
// than hang it.
func (c *client) recvRaw() ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := c.c.Read(ctx)
	return b, err
}

func (c *client) recv() wire.Message {
	c.t.Helper()
	b, err := c.recvRaw()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m wire.Message
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("frame is not JSON: %v: %s", err, b)
	}
	return m
}

// closed reads until the connection ends and returns the close status.
func (c *client) closed() websocket.StatusCode {
	c.t.Helper()
	for {
		b, err := c.recvRaw()
		if err != nil {
			return websocket.CloseStatus(err)
		}
		c.t.Logf("frame before close: %s", b)
	}
}

// sendHello says hello with tok, as id 1.
func (c *client) sendHello(tok string, url bool) {
	c.t.Helper()
	caps := map[string]any{"form": map[string]any{}}
	if url {
		caps["url"] = map[string]any{}
	}
	c.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": wire.MethodHello, "params": map[string]any{
		"token": tok, "clientInfo": map[string]any{"name": "test-widget", "version": "1"}, "capabilities": map[string]any{"elicitation": caps},
	}})
}

// hello authenticates and returns the result.
func (c *client) hello(tok string, url bool) wire.HelloResult {
	c.t.Helper()
	c.sendHello(tok, url)
	m := c.recv()
	if m.Error != nil {
		c.t.Fatalf("hello refused: %v", m.Error)
	}
	var res wire.HelloResult
	if err := json.Unmarshal(m.Result, &res); err != nil {
		c.t.Fatal(err)
	}
	return res
}

// request reads an elicitation/create and returns its id.
func (c *client) request() (string, wire.ElicitParams) {
	c.t.Helper()
	m := c.recv()
	if m.Method != wire.MethodElicit {
		c.t.Fatalf("got %s %s; want %s", m.Method, m.Params, wire.MethodElicit)
	}
	id, _ := wire.StringID(m.ID)
	var p wire.ElicitParams
	json.Unmarshal(m.Params, &p)
	return id, p
}

func (c *client) answer(id string, res wire.ElicitResult) {
	c.t.Helper()
	c.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
}

func (c *client) settled() wire.SettledParams {
	c.t.Helper()
	m := c.recv()
	if m.Method != wire.MethodSettled {
		c.t.Fatalf("got %s %s; want %s", m.Method, m.Params, wire.MethodSettled)
	}
	var p wire.SettledParams
	json.Unmarshal(m.Params, &p)
	return p
}

// call is an Elicit running in its own goroutine.
type call struct {
	done chan struct{}
	res  *wire.ElicitResult
	err  error
}

func elicitAsync(ctx context.Context, h *hub.Hub, params string, opts *hub.ElicitOptions) *call {
	c := &call{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.res, c.err = h.Elicit(ctx, hub.DefaultChannel, requester, json.RawMessage(params), opts)
	}()
	return c
}

func (c *call) wait(t testing.TB) (*wire.ElicitResult, error) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Elicit did not return")
	}
	return c.res, c.err
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// hubOptions allows n widgets on the default channel.
func hubOptions(n int) hub.Options { return hub.Options{MaxWidgets: n} }
