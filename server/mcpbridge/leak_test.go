package mcpbridge

// A proxy that runs for months: what each host session leaves behind.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/leakcheck"
)

// accepter answers every question at once, remembering nothing.
type accepter struct{}

func (accepter) Elicit(ctx context.Context, _ string, _ wire.Implementation, _ json.RawMessage, _ *hub.ElicitOptions) (*wire.ElicitResult, error) {
	return &wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"zeta": "Rome", "alpha": 1, "mid": true}}, nil
}
func (accepter) Complete(string, string) error { return nil }

// sessionCount is how many sessions hh holds, those still opening too.
func sessionCount(hh *HTTPHost) int {
	hh.mu.Lock()
	defer hh.mu.Unlock()
	return len(hh.sessions)
}

// initializeRequest is a host's first request, as rawMCP posts it.
const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// openSession posts an initialize to url and returns its session's id.
func openSession(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	resp := rawMCP(t, ctx, http.DefaultClient, url, "POST", "", initializeRequest)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get(sessionHeader)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, id)
	}
	return id
}

func rawMCP(t *testing.T, ctx context.Context, client *http.Client, url, method, session, body string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(ctx, method, url, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(sessionHeader, session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		t.Fatal(err)
	}
	return resp
}

// TestLeakHTTPHostSessions: host sessions on /mcp that end with a DELETE,
// and ones abandoned (with and without a GET stream) that the reaper ends.
func TestLeakHTTPHostSessions(t *testing.T) {
	for _, upKind := range []string{"memory", "http", "process"} {
		for _, mode := range []string{"closed", "abandoned", "abandoned-get"} {
			t.Run(upKind+"/"+mode, func(t *testing.T) {
				n := 40
				dial := func(ctx context.Context) (mcp.Connection, error) {
					st, ut := mcp.NewInMemoryTransports()
					if _, err := newTestServer(t).Connect(ctx, st, nil); err != nil {
						return nil, err
					}
					return ut.Connect(ctx)
				}
				tool := "elicit"
				switch upKind {
				case "http":
					dial = dialHTTP(upstreamHTTP(t, newTestServer(t), false))
				case "process":
					n = 10
					tool = "echo"
					dial = func(ctx context.Context) (mcp.Connection, error) {
						return Upstream{Command: []string{testServerBin}}.Dial(ctx)
					}
				}
				ctx, cancel := context.WithCancel(context.Background())
				hh := NewHTTPHost(ctx, &Proxy{Eliciter: accepter{}, Channel: "default"}, dial)
				hh.MaxSessions = n + 10
				front := httptest.NewServer(hh)
				defer func() {
					cancel()
					hh.Wait()
					front.Close()
				}()
				tr := &http.Transport{}
				hc := &http.Client{Transport: tr}
				initialized := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
				call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
				cycle := func() {
					switch mode {
					case "closed":
						client := mcp.NewClient(&mcp.Implementation{Name: "web-host", Version: "1"}, nil)
						cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL, HTTPClient: hc}, nil)
						if err != nil {
							t.Fatal(err)
						}
						callText(t, cs, tool)
						cs.Close()
					default:
						resp := rawMCP(t, ctx, hc, front.URL, "POST", "", initializeRequest)
						id := resp.Header.Get(sessionHeader)
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						resp = rawMCP(t, ctx, hc, front.URL, "POST", id, initialized)
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						resp = rawMCP(t, ctx, hc, front.URL, "POST", id, call)
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if mode == "abandoned-get" {
							gctx, gcancel := context.WithCancel(ctx)
							time.AfterFunc(20*time.Millisecond, gcancel)
							resp = rawMCP(t, gctx, hc, front.URL, "GET", id, "")
							if resp != nil {
								io.Copy(io.Discard, resp.Body)
								resp.Body.Close()
							}
							gcancel()
						}
						// the host goes away without DELETE; the reaper ends it
						hh.reap(time.Now().Add(time.Hour))
					}
				}
				for range 3 {
					cycle()
				}
				waitFor(t, "sessions to end", func() bool { hh.reap(time.Now().Add(time.Hour)); return sessionCount(hh) == 0 })
				tr.CloseIdleConnections()
				time.Sleep(100 * time.Millisecond)
				before := leakcheck.Take()
				for range n {
					cycle()
				}
				waitFor(t, "sessions to end", func() bool { hh.reap(time.Now().Add(time.Hour)); return sessionCount(hh) == 0 })
				tr.CloseIdleConnections()
				leakcheck.Check(t, "host sessions", n, before, leakcheck.After(before), leakcheck.Limits{Heap: int64(40 * n << 10), Goroutines: 6, Files: 6}, fmt.Sprint(sessionCount(hh), " sessions held"))
			})
		}
	}
}

// TestLeakLongSessionCancelled: one long-lived session (the stdio proxy's
// life, or a Go host's client), many tool calls whose question the host
// gives up on while the person has it, and many answered. The hub holds
// nothing afterwards and the session does not grow.
func TestLeakLongSessionCancelled(t *testing.T) {
	const n = 300
	for _, path := range []string{"proxy", "adapter"} {
		t.Run(path, func(t *testing.T) {
			h := hub.New(&hub.Options{RatePerMinute: 100 * n, Timeout: time.Hour})
			defer h.Close()
			w, err := h.Attach("default", &hub.AttachOptions{Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}}}})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var cs *mcp.ClientSession
			if path == "proxy" {
				cs = startProxy(t, newTestServer(t), &Proxy{Eliciter: h, Channel: "default"}, "2025-11-25", nil).host
			} else {
				cs = connectClient(t, newTestServer(t), ClientOptions(h, "default", nil), "2025-11-25")
			}
			var buf [][]byte
			cycle := func(i int) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				done := callAsync(ctx, cs, "elicit")
				waitFor(t, "the question", func() bool { return h.Pending("default") == 1 })
				buf, _ = w.Take(buf[:0])
				if i%2 == 0 {
					cancel()
				} else {
					var id string
					for _, f := range buf {
						var m wire.Message
						if json.Unmarshal(f, &m) == nil && m.Method == wire.MethodElicit {
							id, _ = wire.StringID(m.ID)
						}
					}
					if err := w.Answer(id, wire.ElicitResult{Action: wire.ActionDecline}); err != nil {
						t.Fatalf("answer %q: %v", id, err)
					}
				}
				<-done
				waitFor(t, "the question to leave", func() bool { return h.Pending("default") == 0 })
				buf, _ = w.Take(buf[:0])
			}
			for i := range 280 { // past the hub's recent ring (256)
				cycle(i)
			}
			time.Sleep(50 * time.Millisecond)
			before := leakcheck.Take()
			for i := range n {
				cycle(i)
			}
			leakcheck.Check(t, "calls", n, before, leakcheck.After(before), leakcheck.Limits{Heap: 256 << 10, Goroutines: 3, Files: 3}, "")
		})
	}
}

// TestLeakSchemaMemory: a Go host on one long session asks question
// after question, each with its own large schema. The memory of schemas
// that keeps their field order is bounded in bytes, as the hub's parse
// cache is, not only in count: by count alone, 256 schemas of the 256 KiB
// the bridge takes stayed for the process's life.
func TestLeakSchemaMemory(t *testing.T) {
	m := &schemaMemory{byKey: map[[sha256.Size]byte]json.RawMessage{}}
	var last json.RawMessage
	for i := range 300 {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for j := range 225 {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"q%d_%d":{"type":"string","title":"Question %d of call %d","description":"%s"}`, i, j, j, i, strings.Repeat("x", 60))
		}
		b.WriteString(`}}`)
		last = json.RawMessage(b.String())
		m.remember(last)
	}
	kept := 0
	for _, v := range m.byKey {
		kept += len(v)
	}
	if kept > schemaMemoryBytes || kept != m.bytes {
		t.Errorf("300 schemas of %d KiB: %d kept, %d bytes (counted %d); want at most %d bytes", len(last)>>10, len(m.byKey), kept, m.bytes, schemaMemoryBytes)
	}
	var v any
	json.Unmarshal(last, &v)
	if got, ok := m.recall(v); !ok || string(got) != string(last) {
		t.Error("the newest schema was not kept")
	}
	// One larger than the bridge takes is not kept at all.
	huge := json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", elicit.MaxSchemaBytes) + `"}`)
	m.remember(huge)
	if m.bytes != kept {
		t.Errorf("a schema the bridge refuses was kept: %d bytes, was %d", m.bytes, kept)
	}
}

// TestLeakUpstreamRequestsAbandoned: the upstream asks the host things
// (here ping) and gives up on each after a short wait, as servers do; the
// host never answers. What the proxy remembers of those requests must not
// outlive them: once they are abandoned, the next request still reaches
// the host.
func TestLeakUpstreamRequestsAbandoned(t *testing.T) {
	const n = maxHostRequests + 50
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ut := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(travelDesk, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	upConn, err := ut.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ht, pt := mcp.NewInMemoryTransports()
	proxySide, err := pt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	serve := make(chan error, 1)
	go func() { serve <- (&Proxy{Eliciter: accepter{}, Channel: "default"}).Serve(ctx, proxySide, upConn) }()
	host, err := ht.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	// The host: initializes, then reads everything and answers nothing.
	pings := make(chan struct{}, n+10)
	initID, _ := jsonrpc.MakeID(float64(1))
	host.Write(ctx, &jsonrpc.Request{ID: initID, Method: "initialize", Params: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mute","version":"1"}}`)})
	go func() {
		for {
			msg, err := host.Read(ctx)
			if err != nil {
				return
			}
			if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "ping" {
				pings <- struct{}{}
			}
			if r, ok := msg.(*jsonrpc.Response); ok && r.ID == initID {
				host.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	refused := 0
	for i := range n {
		pctx, pcancel := context.WithTimeout(ctx, 3*time.Millisecond)
		err := ss.Ping(pctx, nil)
		pcancel()
		if err != nil && strings.Contains(err.Error(), "has not answered") {
			refused++
			if refused == 1 {
				t.Logf("ping %d refused by the proxy: %v", i+1, err)
			}
		}
	}
	t.Logf("%d pings the upstream gave up on; %d reached the host, %d refused by the proxy", n, len(pings), refused)
	if refused > 0 {
		t.Errorf("after %d abandoned upstream requests the proxy refuses the upstream's requests (%d refused): it still counts the abandoned ones as waiting", maxHostRequests, refused)
	}
}

// TestSchemaMemoryForgets: a schema's defaults may be a person's details
// (a prefilled email address). The memory that keeps field order needs a
// schema only for the moment between its arrival and the handler's
// lookup; on a host that asks nothing more, it must not keep the last
// ones for the process's life.
func TestSchemaMemoryForgets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &schemaMemory{byKey: map[[sha256.Size]byte]json.RawMessage{}}
		schema := json.RawMessage(`{"type":"object","properties":{"email":{"type":"string","format":"email","default":"jane.doe@example.com"}}}`)
		m.remember(schema)
		var v any
		json.Unmarshal(schema, &v)
		if _, ok := m.recall(v); !ok {
			t.Fatal("a schema just seen is not recalled")
		}
		time.Sleep(schemaMemoryAge + time.Minute)
		synctest.Wait()
		m.mu.Lock()
		defer m.mu.Unlock()
		if len(m.byKey) != 0 || len(m.keys) != 0 || m.bytes != 0 {
			t.Errorf("%v after it was seen, with nothing asked since, the memory keeps %d schemas (%d bytes)", schemaMemoryAge+time.Minute, len(m.byKey), m.bytes)
		}
	})
}
