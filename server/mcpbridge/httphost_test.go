package mcpbridge

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreamHTTP serves srv over Streamable HTTP, stateless when asked (the
// go-sdk serves 2026-07-28 on HTTP only then).
func upstreamHTTP(t *testing.T, srv *mcp.Server, stateless bool) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func dialHTTP(url string) func(context.Context) (mcp.Connection, error) {
	return func(ctx context.Context) (mcp.Connection, error) {
		return Upstream{URL: url}.Dial(ctx)
	}
}

// A host on Streamable HTTP, through the proxy's /mcp, to an upstream on
// Streamable HTTP.
func TestHTTPHostToHTTPUpstream(t *testing.T) {
	t.Parallel()
	p := &person{answer: accepting(map[string]any{"zeta": "Rome", "alpha": 1, "mid": true})}
	ctx, cancel := context.WithCancel(context.Background())
	up := upstreamHTTP(t, newTestServer(t), false)
	hh := NewHTTPHost(ctx, &Proxy{Eliciter: p, Channel: "default"}, dialHTTP(up))
	front := httptest.NewServer(hh)
	t.Cleanup(func() {
		cancel()
		hh.Wait()
		front.Close()
	})

	client := mcp.NewClient(&mcp.Implementation{Name: "web-host", Version: "1"}, nil)
	// The host asks for 2026-07-28 and falls back to 2025-11-25: sessions
	// on this endpoint are stateful.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL}, nil)
	if err != nil {
		t.Fatalf("host connect: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("negotiated %s, want 2025-11-25", got)
	}
	for _, tool := range []string{"elicit", "mrtr"} {
		got := callText(t, cs, tool)
		if want := `{"action":"accept","content":{"alpha":1,"mid":true,"zeta":"Rome"}}`; got != want {
			t.Errorf("%s: upstream got %s, want %s", tool, got, want)
		}
	}
	asked := p.seen()
	if len(asked) != 2 || asked[0].Requester != (wire.Implementation{Name: "travel-desk", Title: "Travel Desk", Version: "1.2.0"}) {
		t.Errorf("person was shown %+v", asked)
	}
}

// A stdio-style host at 2026-07-28 through the proxy to a stateless HTTP
// upstream: input requests are answered by the person.
func TestProxyToHTTPUpstream20260728(t *testing.T) {
	t.Parallel()
	p := &person{answer: accepting(map[string]any{"zeta": "Kyoto", "alpha": 4, "mid": false})}
	up := upstreamHTTP(t, newTestServer(t), true)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	upConn, err := dialHTTP(up)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs, serve := hostThrough(t, ctx, &Proxy{Eliciter: p, Channel: "default"}, upConn, nil, nil)
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("negotiated %s, want 2026-07-28", got)
	}
	if got, want := callText(t, cs, "mrtr"), `{"action":"accept","content":{"alpha":4,"mid":false,"zeta":"Kyoto"}}`; got != want {
		t.Errorf("upstream got %s, want %s", got, want)
	}
	if a := p.seen(); len(a) != 1 || a[0].Requester.Name != "travel-desk" {
		t.Errorf("person was shown %+v", a)
	}
	cs.Close()
	select {
	case <-serve:
	case <-time.After(patience):
		t.Error("Serve did not end after the host left")
	}
}

// Notifications an HTTP upstream sends outside any request (list-changed)
// travel on its standalone SSE stream; they must reach the host too.
func TestProxyHTTPUpstreamListChanged(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t)
	up := upstreamHTTP(t, srv, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	upConn, err := dialHTTP(up)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 1)
	cs, _ := hostThrough(t, ctx, &Proxy{Eliciter: &person{answer: accepting(nil)}, Channel: "default"}, upConn, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "new-tool"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	select {
	case <-changed:
	case <-time.After(patience):
		t.Fatal("tools/list_changed from the HTTP upstream did not reach the host")
	}
}

func TestHTTPHostRefuses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dialed := 0
	hh := NewHTTPHost(ctx, &Proxy{Eliciter: &person{answer: accepting(nil)}}, func(context.Context) (mcp.Connection, error) {
		dialed++
		return nil, errors.New("no upstream in this test")
	})
	front := httptest.NewServer(hh)
	defer front.Close()
	init := initializeRequest
	tests := []struct {
		name    string
		method  string
		headers map[string]string
		body    string // "" = init
		want    int
	}{
		{"browser page on another origin", "POST", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, "", http.StatusForbidden},
		{"DNS rebinding", "POST", map[string]string{"Host": "evil.example"}, "", http.StatusForbidden},
		{"unknown session", "POST", map[string]string{"Mcp-Session-Id": "nope"}, "", http.StatusNotFound},
		{"GET without session", "GET", nil, "", http.StatusMethodNotAllowed},
		// Only initialize may take one of the sessions (and dial).
		{"tools/list without session", "POST", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, http.StatusBadRequest},
		{"notification without session", "POST", nil, `{"jsonrpc":"2.0","method":"initialize"}`, http.StatusBadRequest},
		{"not JSON-RPC", "POST", nil, `{bad json`, http.StatusBadRequest},
		{"a batch", "POST", nil, `[` + init + `]`, http.StatusBadRequest},
		{"upstream unreachable", "POST", nil, "", http.StatusBadGateway},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body == "" {
				body = init
			}
			req, _ := http.NewRequest(tt.method, front.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.headers {
				req.Header.Set(k, v)
				if k == "Host" {
					req.Host = v
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	if dialed != 1 {
		t.Errorf("upstream dialed %d times, want 1 (only for the allowed request)", dialed)
	}
}

// /mcp reaches the upstream's tools, so the network only gets it with the
// API key: without one, only connections to a loopback address are served.
func TestHTTPHostKey(t *testing.T) {
	t.Parallel()
	init := initializeRequest
	lan := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 8080}
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	tests := []struct {
		name   string
		key    string
		local  net.Addr
		host   string
		auth   string
		body   string
		want   int
		dialed bool
	}{
		{"loopback without a key", "", loop, "127.0.0.1:8080", "", init, http.StatusBadGateway, true},
		{"network without a key", "", lan, "192.0.2.7:8080", "", init, http.StatusForbidden, false},
		// Whatever Host it names: the address it reached is what counts.
		{"network naming loopback as Host", "", lan, "127.0.0.1:8080", "", init, http.StatusForbidden, false},
		// With the key, the Host check is left to the key (a reverse
		// proxy on this machine passes the public Host).
		{"loopback with the key and a public Host", "k3y", loop, "bridge.example.com", "Bearer k3y", init, http.StatusBadGateway, true},
		{"network with the key", "k3y", lan, "192.0.2.7:8080", "Bearer k3y", init, http.StatusBadGateway, true},
		{"network with a wrong key", "k3y", lan, "192.0.2.7:8080", "Bearer k3", init, http.StatusUnauthorized, false},
		{"loopback without the key it needs", "k3y", loop, "127.0.0.1:8080", "", init, http.StatusUnauthorized, false},
		{"body too large", "", loop, "127.0.0.1:8080", "", strings.Repeat(" ", mcp.DefaultMaxRequestBodyBytes+1) + init, http.StatusRequestEntityTooLarge, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dialed := false
			hh := NewHTTPHost(t.Context(), &Proxy{Eliciter: &person{answer: accepting(nil)}}, func(context.Context) (mcp.Connection, error) {
				dialed = true
				return nil, errors.New("no upstream in this test")
			})
			hh.APIKey = tt.key
			req := httptest.NewRequestWithContext(context.WithValue(t.Context(), http.LocalAddrContextKey, tt.local), "POST", "http://"+tt.host+"/mcp", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			rec := httptest.NewRecorder()
			hh.ServeHTTP(rec, req)
			if rec.Code != tt.want || dialed != tt.dialed {
				t.Errorf("status %d, dialed %v; want %d, %v (%s)", rec.Code, dialed, tt.want, tt.dialed, rec.Body)
			}
		})
	}
}

// A host that went away without DELETE leaves a session no request
// touches: it ends after IdleTimeout, so abandoned sessions cannot fill
// MaxSessions and lock every later host out.
func TestHTTPHostReapsIdleSessions(t *testing.T) {
	t.Parallel()
	ctx, hh, front := acceptingHost(t, 0)
	id := openSession(t, ctx, front.URL)
	if got := hh.idleTimeout(); got != 30*time.Minute {
		t.Errorf("IdleTimeout 0 ends sessions idle for %s, want 30m", got)
	}
	hh.reap(time.Now().Add(time.Minute))
	if n := sessionCount(hh); n != 1 {
		t.Fatalf("%d sessions after a minute idle, want 1", n)
	}
	// Requests in the session, after its initialize, are served and, once
	// answered, leave it idle again: the reaper still ends it.
	for _, body := range []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`} {
		resp := rawMCP(t, ctx, http.DefaultClient, front.URL, "POST", id, body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s in the session a minute on: %s", body, resp.Status)
		}
	}
	// A request counts as open until its handler returns, which may be
	// just after its response arrived.
	waitFor(t, "the requests to be done", func() bool {
		hh.mu.Lock()
		defer hh.mu.Unlock()
		return hh.sessions[id] != nil && hh.sessions[id].open == 0
	})
	hh.reap(time.Now().Add(31 * time.Minute))
	waitFor(t, "the idle session to end", func() bool { return sessionCount(hh) == 0 })
}

// A host's DELETE ends its session there and then: its upstream is let
// go, and the session id is no longer served.
func TestHTTPHostDeleteEndsSession(t *testing.T) {
	t.Parallel()
	ctx, hh, front := acceptingHost(t, 0)
	id := openSession(t, ctx, front.URL)
	resp := rawMCP(t, ctx, http.DefaultClient, front.URL, "DELETE", id, "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s, want 204", resp.Status)
	}
	waitFor(t, "the deleted session to end", func() bool { return sessionCount(hh) == 0 })
}

// A slot taken for a session still dialing its upstream (nil) is left
// to the request opening it: the reaper passes it by.
func TestHTTPHostReapPassesSessionsOpening(t *testing.T) {
	t.Parallel()
	_, hh, _ := acceptingHost(t, 0)
	hh.mu.Lock()
	hh.sessions["opening"] = nil
	hh.mu.Unlock()
	hh.reap(time.Now().Add(time.Hour))
	hh.mu.Lock()
	_, kept := hh.sessions["opening"]
	hh.mu.Unlock()
	if !kept {
		t.Error("the reaper took the slot of a session still opening")
	}
}

// An HTTP upstream that goes away mid-call: the host gets an error and
// the person's question is withdrawn, as with a subprocess.
func TestProxyHTTPUpstreamGoneMidCall(t *testing.T) {
	t.Parallel()
	withdrawn := make(chan struct{}, 1)
	p := &person{answer: func(ctx context.Context, _ wire.ElicitParams) (*wire.ElicitResult, error) {
		<-ctx.Done()
		withdrawn <- struct{}{}
		return nil, ctx.Err()
	}}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newTestServer(t) }, nil)
	up := httptest.NewServer(h)
	defer up.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	upConn, err := Upstream{URL: up.URL}.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs, serve := hostThrough(t, ctx, &Proxy{Eliciter: p, Channel: "default"}, upConn, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	defer cs.Close()
	done := callAsync(ctx, cs, "elicit")
	waitFor(t, "the person to be asked", func() bool { return len(p.seen()) == 1 })
	up.CloseClientConnections()
	up.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("host call succeeded after the upstream went away")
		}
		t.Logf("host call ended with: %v", err)
	case <-time.After(patience):
		t.Fatal("host call hangs after the HTTP upstream went away")
	}
	select {
	case <-withdrawn:
	case <-time.After(patience):
		t.Fatal("pending question not withdrawn")
	}
	select {
	case err := <-serve:
		if !errors.Is(err, ErrUpstreamClosed) {
			t.Errorf("Serve returned %v, want ErrUpstreamClosed", err)
		}
	case <-time.After(patience):
		t.Fatal("Serve did not return")
	}
}

// Hosts that initialize and go away without DELETE (a crash, or a
// script run in a loop) leave sessions that count against MaxSessions
// until the reaper, 30 minutes on: 64 bare initializes, under a second's
// work, kept every later host out for that long (503). A new host now
// takes the place of the session idle longest; a session with a request
// open (a call waiting on a person, a GET stream) is never the one.
func TestHTTPHostFullOfAbandonedSessions(t *testing.T) {
	t.Parallel()
	ctx, hh, front := acceptingHost(t, 8)
	// A host that stays: a session with its GET stream open.
	keeper := mcp.NewClient(&mcp.Implementation{Name: "keeper", Version: "1"}, nil)
	kept, err := keeper.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	for range 2 * hh.MaxSessions {
		openSession(t, ctx, front.URL)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "late-host", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL}, nil)
	if err != nil {
		t.Fatalf("a host arriving after %d abandoned sessions: %v", 2*hh.MaxSessions, err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("the late host's call: %v", err)
	}
	if _, err := kept.ListTools(ctx, nil); err != nil {
		t.Errorf("the host that stayed lost its session: %v", err)
	}
}

// A session just opened counts its initialize as open until that is
// served: a second host arriving meanwhile, with no room, must not end
// it (before, open returned it idle, and evictIdlest could take it
// between its opening and its first request).
func TestHTTPHostNewSessionNotEvicted(t *testing.T) {
	t.Parallel()
	_, hh, _ := acceptingHost(t, 1)
	first, err := hh.open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hh.open(); !errors.Is(err, errTooManySessions) {
		t.Errorf("a second session with no room, while the first's initialize is being served: %v; want errTooManySessions", err)
	}
	hh.mu.Lock()
	kept := hh.sessions[first.transport.SessionID] == first
	hh.mu.Unlock()
	if !kept {
		t.Error("the first session, opened for an initialize not yet served, was ended")
	}
}

// acceptingHost serves, in front of the test server, an HTTPHost whose
// person accepts everything, with MaxSessions max (0: its default); it
// stops when the test ends.
func acceptingHost(t *testing.T, max int) (context.Context, *HTTPHost, *httptest.Server) {
	ctx, cancel := context.WithCancel(context.Background())
	hh := NewHTTPHost(ctx, &Proxy{Eliciter: &person{answer: accepting(nil)}, Channel: "default"}, func(ctx context.Context) (mcp.Connection, error) {
		st, ut := mcp.NewInMemoryTransports()
		if _, err := newTestServer(t).Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ut.Connect(ctx)
	})
	hh.MaxSessions = max
	front := httptest.NewServer(hh)
	t.Cleanup(func() {
		cancel()
		hh.Wait()
		front.Close()
	})
	return ctx, hh, front
}
