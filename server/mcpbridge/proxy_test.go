package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// proxied is a host session talking to an upstream through a Proxy.
type proxied struct {
	host   *mcp.ClientSession
	client *mcp.Client
	up     *mcp.ServerSession
	serve  chan error // Serve's result
	crash  func()     // drops the upstream's connection, as a dying process would
}

// crashable lets a test drop a server's connection without the graceful
// close (which would wait for the server's in-flight calls).
type crashable struct {
	mcp.Transport
	conn mcp.Connection
}

func (c *crashable) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	c.conn = conn
	return conn, err
}

// startProxy connects srv <-> Proxy <-> a go-sdk client (the host) over
// in-memory transports. The host has no elicitation handler of its own,
// like the hosts the proxy is for.
func startProxy(t *testing.T, srv *mcp.Server, p *Proxy, version string, hostOpts *mcp.ClientOptions) *proxied {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ut := mcp.NewInMemoryTransports()
	crash := &crashable{Transport: st}
	ss, err := srv.Connect(ctx, crash, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	upConn, err := ut.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "plain-host", Version: "1"}, hostOpts)
	cs, serve := connectThrough(t, ctx, p, upConn, client, &mcp.ClientSessionOptions{ProtocolVersion: version})
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		select {
		case <-serve:
		case <-time.After(patience):
			t.Error("Serve did not return after both sides closed")
		}
		cancel()
	})
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	return &proxied{host: cs, client: client, up: ss, serve: serve, crash: func() { crash.conn.Close() }}
}

func TestProxyElicitsThroughFormbridge(t *testing.T) {
	tests := []struct{ protocol, tool string }{
		{"2025-06-18", "elicit"},
		{"2025-11-25", "elicit"},
		{"2025-11-25", "mrtr"},
		{"2026-07-28", "mrtr"}, // input_required answered by the proxy, retried upstream
	}
	for _, tt := range tests {
		t.Run(tt.protocol+"/"+tt.tool, func(t *testing.T) {
			t.Parallel()
			p := &person{answer: accepting(map[string]any{"zeta": "Oslo", "alpha": 2, "mid": false})}
			px := startProxy(t, newTestServer(t), &Proxy{Eliciter: p, Channel: "ops"}, tt.protocol, nil)

			got := callText(t, px.host, tt.tool)
			want := `{"action":"accept","content":{"alpha":2,"mid":false,"zeta":"Oslo"}}`
			if got != want {
				t.Errorf("upstream got %s, want %s", got, want)
			}
			asked := p.seen()
			if len(asked) != 1 {
				t.Fatalf("person was asked %d times, want 1", len(asked))
			}
			wantRequester := wire.Implementation{Name: "travel-desk", Title: "Travel Desk", Version: "1.2.0"}
			if asked[0].Requester != wantRequester || asked[0].Channel != "ops" {
				t.Errorf("shown on %q as %+v, want ops and %+v", asked[0].Channel, asked[0].Requester, wantRequester)
			}
			if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, asked[0].Keys); diff != "" {
				t.Errorf("field order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProxyDeclaresElicitationKeepingHostCapabilities(t *testing.T) {
	t.Parallel()
	p := &person{answer: accepting(nil)}
	hostOpts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		RootsV2:  &mcp.RootCapabilities{ListChanged: true},
		Sampling: &mcp.SamplingCapabilities{},
	}}
	srv := newTestServer(t)
	mcp.AddTool(srv, &mcp.Tool{Name: "allcaps"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		b, _ := json.Marshal(req.Session.InitializeParams().Capabilities)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", hostOpts)
	var caps map[string]any
	if err := json.Unmarshal([]byte(callText(t, px.host, "allcaps")), &caps); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
		"roots":       map[string]any{"listChanged": true},
		"sampling":    map[string]any{},
	}
	if diff := cmp.Diff(want, caps); diff != "" {
		t.Errorf("upstream saw capabilities (-want +got):\n%s", diff)
	}
}

// Tool calls, listings, resources, prompts and ping pass through as the
// upstream answered them.
func TestProxyPassesThroughUntouched(t *testing.T) {
	for _, protocol := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			srv := richServer()
			direct := connectClient(t, srv, nil, protocol)
			px := startProxy(t, srv, &Proxy{Eliciter: &person{answer: accepting(nil)}, Channel: "default"}, protocol, nil)
			ctx := context.Background()

			for _, step := range []struct {
				name string
				do   func(cs *mcp.ClientSession) (any, error)
			}{
				{"tools/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListTools(ctx, nil) }},
				{"tools/call", func(cs *mcp.ClientSession) (any, error) {
					return cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 40}})
				}},
				{"tools/call error", func(cs *mcp.ClientSession) (any, error) {
					return cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": "x"}})
				}},
				{"resources/read", func(cs *mcp.ClientSession) (any, error) {
					return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memo://today"})
				}},
				{"prompts/get", func(cs *mcp.ClientSession) (any, error) {
					return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ada"}})
				}},
				{"ping", func(cs *mcp.ClientSession) (any, error) { return "pong", cs.Ping(ctx, nil) }},
				{"resources/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListResources(ctx, nil) }},
				{"prompts/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListPrompts(ctx, nil) }},
				{"completion/complete", func(cs *mcp.ClientSession) (any, error) {
					return cs.Complete(ctx, &mcp.CompleteParams{
						Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
						Argument: mcp.CompleteParamsArgument{Name: "who", Value: "A"},
					})
				}},
				{"unknown tool", func(cs *mcp.ClientSession) (any, error) {
					return cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"})
				}},
			} {
				want, wantErr := step.do(direct)
				got, gotErr := step.do(px.host)
				if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
					t.Errorf("%s: error %v through the proxy, %v directly", step.name, gotErr, wantErr)
					continue
				}
				if diff := cmp.Diff(asJSON(t, want), asJSON(t, got)); diff != "" {
					t.Errorf("%s through the proxy differs (-direct +proxied):\n%s", step.name, diff)
				}
			}
		})
	}
}

func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// richServer has one of each feature the proxy must not need to know.
func richServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "kitchen-sink", Version: "3"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "da", req.Params.Argument.Value + "lan"}}}, nil
		},
	})
	type addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type addOut struct {
		Sum int `json:"sum"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "adds"}, func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "memo://today", Name: "today", MIMEType: "text/plain"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "memo://today", MIMEType: "text/plain", Text: "buy milk"}}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["who"]}}}}, nil
	})
	return srv
}

// Notifications pass both ways: progress and logging during a call and
// list-changed from the upstream; roots list-changed from the host.
func TestProxyNotificationsBothWays(t *testing.T) {
	t.Parallel()
	progress := make(chan float64, 4)
	logged := make(chan string, 4)
	toolsChanged := make(chan struct{}, 4)
	rootsChanged := make(chan struct{}, 4)

	srv := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "1"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) { rootsChanged <- struct{}{} },
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 0.5, Total: 1})
		}
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "halfway"})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	hostOpts := &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params.Progress },
		LoggingMessageHandler:       func(_ context.Context, r *mcp.LoggingMessageRequest) { logged <- r.Params.Data.(string) },
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { toolsChanged <- struct{}{} },
	}
	px := startProxy(t, srv, &Proxy{Eliciter: &person{answer: accepting(nil)}, Channel: "default"}, "2025-11-25", hostOpts)
	ctx := context.Background()
	if err := px.host.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "work"}
	params.SetProgressToken("tok-1")
	if _, err := px.host.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	px.client.AddRoots(&mcp.Root{URI: "file:///srv/project"})
	for name, ch := range map[string]<-chan struct{}{"tools list-changed": toolsChanged, "roots list-changed": rootsChanged} {
		select {
		case <-ch:
		case <-time.After(patience):
			t.Errorf("%s did not arrive through the proxy", name)
		}
	}
	select {
	case v := <-progress:
		if v != 0.5 {
			t.Errorf("progress %v, want 0.5", v)
		}
	case <-time.After(patience):
		t.Error("progress did not arrive")
	}
	select {
	case v := <-logged:
		if v != "halfway" {
			t.Errorf("log %q, want halfway", v)
		}
	case <-time.After(patience):
		t.Error("log message did not arrive")
	}
}

// A host that gives up on a call withdraws its elicitation and cancels it
// upstream.
func TestProxyHostCancelWithdraws(t *testing.T) {
	t.Parallel()
	p, withdrawn := waitingPerson()
	upstreamCancelled := make(chan struct{})
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Still there?", RequestedSchema: json.RawMessage(tripSchema)})
		if ctx.Err() != nil {
			close(upstreamCancelled)
		}
		return nil, nil, err
	})
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := callAsync(ctx, px.host, "wait")
	waitFor(t, "the person to be asked", func() bool { return len(p.seen()) == 1 })
	cancel()
	for name, ch := range map[string]<-chan struct{}{"elicitation withdrawn": withdrawn, "upstream call cancelled": upstreamCancelled} {
		select {
		case <-ch:
		case <-time.After(patience):
			t.Fatalf("%s: did not happen after the host cancelled", name)
		}
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("host call ended with %v", err)
	}
}

// An upstream that dies mid-call: the host gets an error, never a hang,
// and the person's pending question is withdrawn.
func TestProxyUpstreamGoneMidCall(t *testing.T) {
	t.Parallel()
	p, withdrawn := waitingPerson()
	px := startProxy(t, newTestServer(t), &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
	done := callAsync(context.Background(), px.host, "elicit")
	waitFor(t, "the person to be asked", func() bool { return len(p.seen()) == 1 })
	px.crash()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), ErrUpstreamClosed.Error()) {
			t.Errorf("host call ended with %v, want the upstream's closing", err)
		}
	case <-time.After(patience):
		t.Fatal("host call hangs after the upstream went away")
	}
	select {
	case <-withdrawn:
	case <-time.After(patience):
		t.Fatal("pending elicitation was not withdrawn")
	}
	select {
	case err := <-px.serve:
		if !errors.Is(err, ErrUpstreamClosed) {
			t.Errorf("Serve returned %v, want ErrUpstreamClosed", err)
		}
		px.serve <- err // for the cleanup
	case <-time.After(patience):
		t.Fatal("Serve did not return")
	}
}

// -32042: the proxy shows the URL request, waits for its completion and
// retries once; the host sees the retried result. A link listed twice,
// or under two ids, is shown once.
func TestProxyURLElicitationRequired(t *testing.T) {
	const url = "https://auth.example/start"
	link := func(id string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "url", Message: "Authorize the calendar", URL: url, ElicitationID: id}
	}
	tests := []struct {
		name  string
		links []*mcp.ElicitParams
	}{
		{"one link", []*mcp.ElicitParams{link("auth-9")}},
		{"listed twice and under two ids", []*mcp.ElicitParams{link("auth-9"), link("auth-9"), link("auth-10")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := mcp.NewServer(travelDesk, nil)
			var ss atomic.Pointer[mcp.ServerSession]
			mcp.AddTool(srv, &mcp.Tool{Name: "sync"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				ss.Store(req.Session)
				if calls.Add(1) == 1 {
					return nil, nil, mcp.URLElicitationRequiredError(tt.links)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "synced"}}}, nil, nil
			})
			ids := map[string]bool{}
			for _, l := range tt.links {
				ids[l.ElicitationID] = true
			}
			p := &person{}
			p.answer = func(ctx context.Context, ep wire.ElicitParams) (*wire.ElicitResult, error) {
				// The person opens the link; the server learns it is done and says so.
				go func() {
					for id := range ids {
						ss.Load().NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: id})
					}
				}()
				return &wire.ElicitResult{Action: wire.ActionAccept}, nil
			}
			px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
			if got := callText(t, px.host, "sync"); got != "synced" {
				t.Errorf("host got %q, want the retried result", got)
			}
			if n := calls.Load(); n != 2 {
				t.Errorf("upstream saw %d calls, want 2", n)
			}
			if a := p.seen(); len(a) != 1 || a[0].Params.URL != url {
				t.Errorf("the person was shown %d links, want the one once: %+v", len(a), a)
			}
			waitFor(t, "completion forwarded to the widgets", func() bool { return len(p.done()) == len(ids) })
		})
	}
}

func TestProxyPassThroughLeavesElicitationToHost(t *testing.T) {
	tests := []struct{ protocol, tool string }{
		{"2025-11-25", "elicit"},
		{"2026-07-28", "mrtr"}, // the host's own go-sdk answers the input request
	}
	for _, tt := range tests {
		t.Run(tt.protocol, func(t *testing.T) {
			t.Parallel()
			p := &person{answer: accepting(nil)}
			hostOpts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}}
			px := startProxy(t, newTestServer(t), &Proxy{Eliciter: p, Channel: "default", PassThrough: true}, tt.protocol, hostOpts)
			if got, want := callText(t, px.host, tt.tool), `{"action":"decline"}`; got != want {
				t.Errorf("upstream got %s, want the host's %s", got, want)
			}
			if len(p.seen()) != 0 {
				t.Error("formbridge was asked in pass-through mode")
			}
		})
	}
}

// Requests the upstream sends the host (roots, sampling) pass through and
// their answers come back.
func TestProxyUpstreamRequestsReachHost(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "curious", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "look"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		roots, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		msg, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, nil, err
		}
		text := roots.Roots[0].URI + " " + msg.Content.(*mcp.TextContent).Text
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	hostOpts := &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hello back"}}, nil
	}}
	px := startProxy(t, srv, &Proxy{Eliciter: &person{answer: accepting(nil)}, Channel: "default"}, "2025-11-25", hostOpts)
	px.client.AddRoots(&mcp.Root{URI: "file:///srv/app"})
	if got, want := callText(t, px.host, "look"), "file:///srv/app hello back"; got != want {
		t.Errorf("upstream saw %q, want %q", got, want)
	}
}
