package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/logbuf"
)

// freeAddr is a loopback address nothing listens on (yet).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// frontProxy is a reverse proxy on loopback in front of backend, the way
// an operator puts nginx or Caddy in front of a service bound to
// 127.0.0.1: it keeps the Host people used (proxy_set_header Host $host)
// and says who the client was in X-Forwarded-*.
func frontProxy(t *testing.T, backend, publicHost string) *httptest.Server {
	t.Helper()
	target, _ := url.Parse(backend)
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = publicHost
		pr.SetXForwarded()
	}}
	front := httptest.NewServer(rp)
	t.Cleanup(front.Close)
	return front
}

// An operator runs `formbridge proxy --upstream … --api-key K --public-url
// https://mcp.example.com` bound to 127.0.0.1 behind a TLS-terminating
// reverse proxy on the same machine, as PROXY.md allows ("with an API key
// … every host must send Authorization: Bearer <key>, from this machine or
// another"). Every MCP host that sends the key is refused 403 "Host is not
// this machine": the anti-rebinding Host check runs before the key.
func TestProxyMCPBehindReverseProxy(t *testing.T) {
	const key = "an-api-key-0123456789abcdefghij"
	upSrv := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	mcp.AddTool(upSrv, &mcp.Tool{Name: "ping"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return upSrv }, nil))
	t.Cleanup(up.Close)

	p := startProxy(t, "--api-key", key, "--public-url", "https://mcp.example.com", "--upstream", up.URL)
	front := frontProxy(t, "http://"+p.addr, "mcp.example.com")

	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	cs, err := client.Connect(cctx, &mcp.StreamableClientTransport{
		Endpoint:   front.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key}},
	}, nil)
	if err != nil {
		t.Fatalf("an MCP host with the API key, through the operator's reverse proxy: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "ping"})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("call through the reverse proxy: %v", err)
	}
}

// toollessUpstream is an MCP server over HTTP with nothing to offer, for
// a proxy to pass hosts on to.
func toollessUpstream(t *testing.T) *httptest.Server {
	upSrv := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return upSrv }, nil))
	t.Cleanup(up.Close)
	return up
}

// proxyRun is `formbridge proxy --no-stdio` running on loopback.
type proxyRun struct {
	addr string
	logs *logbuf.Buffer
	stop func() // as SIGTERM does; waits for it to end (at most 15 s)
}

func startProxy(t *testing.T, args ...string) *proxyRun {
	t.Helper()
	p := &proxyRun{addr: freeAddr(t), logs: &logbuf.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runProxy(ctx, append([]string{"--addr", p.addr, "--no-stdio"}, args...), strings.NewReader(""), io.Discard, p.logs)
	}()
	p.stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			t.Logf("the proxy stopped: %v", err)
		case <-time.After(15 * time.Second):
			t.Error("the proxy did not stop within 15 s")
		}
	})
	t.Cleanup(p.stop)
	waitUp(t, "http://"+p.addr+"/healthz")
	return p
}

type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

func waitUp(t *testing.T, u string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never answered", u)
}

// --public-url with a path (https://intranet.example.com/approvals) gave
// links under it, to a page that loads its files from /v/… and its
// WebSocket from /ws at the host's root: behind a proxy mounting the
// bridge at that path, the link opened a page that could not load. It
// is refused at start.
func TestPublicURLWithPathRefused(t *testing.T) {
	_, _, err := startBridge(testFlags(t, "--public-url", "https://intranet.example.com/approvals"), io.Discard, nil)
	var usage *usageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "root") {
		t.Fatalf("--public-url with a path: %v; want a usage error saying the bridge must be at the root", err)
	}
}

// Anyone who can reach the bridge, with no token, writes a log line per
// plain HTTP request to /ws (a refused Origin, or a GET that is no
// upgrade): over one keep-alive connection, as fast as they can send.
// Behind a service manager that keeps the journal, or a collector that
// bills by volume, that is a disk or a bill filled from outside. Each
// other refusal of an unauthenticated client (a ?token= URL, no
// subprotocol) is not logged at all; these should be bounded too.
func TestRefusedUpgradesCannotFloodTheLog(t *testing.T) {
	r, _, logs := startTest(t, testFlags(t), nil)
	before := len(logs.String())
	const n = 2000
	start := time.Now()
	for i := range n {
		req, _ := http.NewRequest("GET", r.baseURL+"/ws", nil)
		req.Header.Set("Sec-WebSocket-Protocol", "formbridge.v1")
		if i%2 == 0 {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			req.Header.Set("Origin", "https://evil.example/"+strings.Repeat("x", 300))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	took := time.Since(start)
	logged := logs.String()[before:]
	lines := strings.Count(logged, "\n")
	t.Logf("sample: %s", strings.SplitN(logged, "\n", 3)[:2])
	t.Logf("%d refused requests in %v wrote %d log lines, %d bytes (%.0f KB/s from one unauthenticated client)",
		n, took.Round(time.Millisecond), lines, len(logged), float64(len(logged))/1024/took.Seconds())
	if lines > 100 {
		t.Errorf("%d unauthenticated refusals wrote %d log lines; want them summarised (at most a few per minute per reason)", n, lines)
	}
}

// Stopping `formbridge proxy --upstream` (SIGTERM from systemd, a
// container stop) while an MCP host is connected over /mcp, and one of
// its tool calls waits for a person.
func TestProxyShutdownWithHTTPHost(t *testing.T) {
	upSrv := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	mcp.AddTool(upSrv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "ok?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil, nil
	})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return upSrv }, nil))
	t.Cleanup(func() { up.CloseClientConnections(); go up.Close() })

	p := startProxy(t, "--token", testToken, "--upstream", up.URL)
	addr := p.addr
	w := dialWidget(t, "http://"+addr, testToken)

	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer ccancel()
	cs, err := client.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	called := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "ask"})
		switch {
		case err != nil:
			called <- "error: " + err.Error()
		case len(res.Content) > 0:
			called <- "result: " + res.Content[0].(*mcp.TextContent).Text
		default:
			called <- "empty result"
		}
	}()
	w.question() // the person sees it: the call waits

	start := time.Now()
	p.stop() // SIGTERM
	took := time.Since(start)
	select {
	case got := <-called:
		t.Logf("the host's call: %s", got)
	case <-time.After(5 * time.Second):
		t.Error("the host's call got nothing")
	}
	if strings.Contains(p.logs.String(), "cut off") {
		t.Errorf("stopping (%v) held the HTTP server for its whole grace period and cut requests off:\n%s", took, p.logs)
	}
}

// A host with a mistyped or rotated API key gets 401 on every call, and
// a runaway script 429: the operator, reading the bridge's log to find
// out why approvals stopped arriving, sees nothing at all.
func TestAPIRefusalsLogged(t *testing.T) {
	const key = "the-right-api-key-0123456789abc"
	r, _, logs := startTest(t, testFlags(t, "--api-key", key), nil)
	before := len(logs.String())
	req, _ := http.NewRequest("POST", r.baseURL+"/api/v1/channels/default/elicitations",
		strings.NewReader(`{"params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`))
	req.Header.Set("Authorization", "Bearer the-old-api-key-0123456789abc")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d", resp.StatusCode)
	}
	logged := logs.String()[before:]
	if !strings.Contains(logged, "wrong API key") || !strings.Contains(logged, "status=401") {
		t.Errorf("a call refused for its API key left no trace in the log: %q", logged)
	}
	if strings.Contains(logged, "the-old-api-key") || strings.Contains(logged, key) {
		t.Errorf("the log holds a key: %q", logged)
	}
}

// `formbridge proxy --upstream …` without --api-key serves /mcp "to this
// machine only" (its --help), judged by the address the connection came
// to. Put behind a reverse proxy on the same machine (which passes the
// upstream's Host, as nginx does by default, and says who the client was
// in X-Forwarded-For), every connection comes from 127.0.0.1: /mcp, with
// the upstream's tools, is served to anyone on the internet, no key asked.
func TestProxyMCPWithoutKeyNotOpenedByReverseProxy(t *testing.T) {
	up := toollessUpstream(t)
	p := startProxy(t, "--public-url", "https://mcp.example.com", "--upstream", up.URL)
	target, _ := url.Parse("http://" + p.addr)
	front := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target) // Host becomes the upstream's, 127.0.0.1:port
		pr.Out.Header.Set("X-Forwarded-For", "203.0.113.9")
		pr.Out.Header.Set("X-Forwarded-Proto", "https")
	}})
	t.Cleanup(front.Close)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	req, _ := http.NewRequest("POST", front.URL+"/mcp", strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		t.Errorf("a client at 203.0.113.9, through the reverse proxy, opened an MCP session on /mcp without any key: %d", resp.StatusCode)
	}
	if logged := p.logs.String(); !strings.Contains(logged, "MCP host refused") || !strings.Contains(logged, "for 203.0.113.9") {
		t.Errorf("the refusal left no line naming the client in the log:\n%s", logged)
	}
}

// A host with a mistyped or rotated key on the proxy's /mcp is refused
// 401, and the operator finds why in the log, without the key.
func TestProxyMCPWrongKeyLogged(t *testing.T) {
	up := toollessUpstream(t)
	p := startProxy(t, "--api-key", "the-right-api-key-0123456789abc", "--upstream", up.URL)
	req, _ := http.NewRequest("POST", "http://"+p.addr+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer the-old-api-key-0123456789abc")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	logged := p.logs.String()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(logged, "wrong or missing API key") || !strings.Contains(logged, "status=401") {
		t.Errorf("status %d; log:\n%s\nwant 401 and a line saying the key was wrong", resp.StatusCode, logged)
	}
	if strings.Contains(logged, "api-key-0123456789abc") {
		t.Errorf("the log holds a key:\n%s", logged)
	}
}

// HAProxy's `option forwardfor` (and any proxy that appends a header line
// instead of merging) forwards the client's own X-Forwarded-For lines and
// adds its own after them. A client that sends an empty X-Forwarded-For
// first makes Header.Get return "": /mcp without a key, reached from the
// internet through the proxy, counts as this machine's again.
func TestProxyForwardedEmptyFirstLine(t *testing.T) {
	up := toollessUpstream(t)
	p := startProxy(t, "--upstream", up.URL)
	for _, hdr := range []string{
		"X-Forwarded-For: \r\nX-Forwarded-For: 203.0.113.9\r\n", // attacker's empty line, then HAProxy's
		"X-Real-Ip:\r\nX-Real-Ip: 203.0.113.9\r\n",
		"Forwarded: \r\nForwarded: for=203.0.113.9\r\n",
	} {
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			p.addr, hdr, len(init), init)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		c.Close()
		if resp.StatusCode/100 == 2 {
			t.Errorf("a request a proxy passed on (%q) opened an MCP session without a key: %d", strings.TrimSpace(hdr), resp.StatusCode)
		}
	}
}

// The new root-only check reads the decoded path: "/%2F" decodes to "/"
// and passes, while the link keeps "%2F" (https://host/%2F/#token=…): the
// page a path refusal was meant to prevent.
func TestPublicURLEncodedPathRefused(t *testing.T) {
	for _, s := range []string{"https://approvals.example.com/%2F", "https://approvals.example.com/%2f%2F/"} {
		if base, err := checkPublicURL(s); err == nil {
			t.Errorf("--public-url %q accepted as %q; want it refused like any path", s, base)
		}
	}
	for _, s := range []string{"https://approvals.example.com", "https://approvals.example.com/", "https://approvals.example.com//", "http://127.0.0.1:8080/"} {
		if _, err := checkPublicURL(s); err != nil {
			t.Errorf("--public-url %q: %v", s, err)
		}
	}
}

// One anonymous client sending plain GETs to /ws (no upgrade, no hello:
// the cheapest request there is) spends the gateway's one budget of 20
// lines a minute, so the operator looking for why a real widget with an
// old token is refused finds no "unknown token" line for that minute
// (and, if the flood goes on, for every minute).
func TestRefusalFloodHidesNoOtherReason(t *testing.T) {
	r, _, logs := startTest(t, testFlags(t), nil)
	for range 50 {
		req, _ := http.NewRequest("GET", r.baseURL+"/ws", nil)
		req.Header.Set("Sec-WebSocket-Protocol", wire.Subprotocol)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// It comes through a reverse proxy, which names it: the line does too.
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.baseURL, "http")+wire.Path,
		&websocket.DialOptions{Subprotocols: []string{wire.Subprotocol}, HTTPHeader: http.Header{"X-Forwarded-For": {"203.0.113.7"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	hello, _ := wire.NewRequest("h", wire.MethodHello, wire.HelloParams{Token: "a-rotated-token", ClientInfo: wire.Implementation{Name: "real-widget"}})
	wsjson.Write(ctx, c, hello)
	var m wire.Message
	wsjson.Read(ctx, c, &m) // the refusal, sent after its line is written
	line := ""
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, "widget refused: unknown token") {
			line = l
		}
	}
	if line == "" {
		t.Errorf("a widget refused for its token left no line: a flood of another kind of refusal spent the minute's budget")
	} else if !strings.Contains(line, " for 203.0.113.7") {
		t.Errorf("refusal line %q does not name the client the proxy forwarded for", line)
	}
}
