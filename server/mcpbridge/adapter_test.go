package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tripSchema lists its properties out of alphabetical order on purpose:
// the person must see them in this order.
const tripSchema = `{"type":"object","properties":{` +
	`"zeta":{"type":"string","title":"Destination"},` +
	`"alpha":{"type":"integer","title":"Nights","minimum":1},` +
	`"mid":{"type":"boolean","title":"Window seat","default":false}},` +
	`"required":["zeta","alpha"]}`

var travelDesk = &mcp.Implementation{Name: "travel-desk", Title: "Travel Desk", Version: "1.2.0"}

// newTestServer is a go-sdk server with tools that elicit the way real
// servers do: classic elicitation/create, 2026-07-28 input requests, and a
// URL-mode flow that completes.
func newTestServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(travelDesk, nil)
	reply := func(v any) (*mcp.CallToolResult, any, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "elicit"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Book the trip?", RequestedSchema: json.RawMessage(tripSchema)})
		if err != nil {
			var rpcErr *jsonrpc.Error
			if errors.As(err, &rpcErr) {
				return reply(map[string]any{"code": rpcErr.Code})
			}
			return nil, nil, err
		}
		return reply(res)
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "mrtr"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		resp, ok := req.Params.InputResponses["trip"]
		if !ok {
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"trip": &mcp.ElicitParams{Message: "Book the trip?", RequestedSchema: json.RawMessage(tripSchema)}},
				RequestState:  "state-7",
			}, nil, nil
		}
		if req.Params.RequestState != "state-7" {
			return nil, nil, fmt.Errorf("requestState %q was not echoed", req.Params.RequestState)
		}
		return reply(resp)
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "connect"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Connect your calendar", URL: "https://calendar.example/connect?s=1", ElicitationID: "cal-1"})
		if err != nil {
			return nil, nil, err
		}
		if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "cal-1"}); err != nil {
			return nil, nil, err
		}
		return reply(res)
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "caps"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return reply(req.Session.InitializeParams().Capabilities.Elicitation)
	})
	return srv
}

func connectClient(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "go-host", Version: "0.1"}, opts)
	cs, err := client.Connect(ctx, Transport(ct), &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated protocol %s, want %s", got, version)
	}
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("call %s: %d content items, want 1", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("call %s: content is %T", tool, res.Content[0])
	}
	if res.IsError {
		t.Fatalf("call %s: tool error: %s", tool, text.Text)
	}
	return text.Text
}

func TestAdapterForm(t *testing.T) {
	tests := []struct {
		protocol, tool string
	}{
		{"2025-06-18", "elicit"},
		{"2025-11-25", "elicit"},
		{"2025-11-25", "mrtr"}, // the go-sdk server turns input requests into elicitation/create
		{"2026-07-28", "mrtr"}, // the go-sdk client answers input requests through the handler
	}
	for _, tt := range tests {
		t.Run(tt.protocol+"/"+tt.tool, func(t *testing.T) {
			t.Parallel()
			p := &person{answer: accepting(map[string]any{"zeta": "Lisbon", "alpha": 3, "mid": true})}
			cs := connectClient(t, newTestServer(t), ClientOptions(p, "ops", nil), tt.protocol)

			got := callText(t, cs, tt.tool)
			want := `{"action":"accept","content":{"alpha":3,"mid":true,"zeta":"Lisbon"}}`
			if got != want {
				t.Errorf("server got %s, want %s", got, want)
			}
			asked := p.seen()
			if len(asked) != 1 {
				t.Fatalf("person was asked %d times, want 1", len(asked))
			}
			a := asked[0]
			wantRequester := wire.Implementation{Name: "travel-desk", Title: "Travel Desk", Version: "1.2.0"}
			if a.Requester != wantRequester {
				t.Errorf("requester %+v, want %+v", a.Requester, wantRequester)
			}
			if a.Channel != "ops" || a.Params.Message != "Book the trip?" || a.Params.Mode != wire.ModeForm {
				t.Errorf("shown channel %q message %q mode %q", a.Channel, a.Params.Message, a.Params.Mode)
			}
			if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, a.Keys); diff != "" {
				t.Errorf("field order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAdapterDecline(t *testing.T) {
	t.Parallel()
	p := &person{answer: func(context.Context, wire.ElicitParams) (*wire.ElicitResult, error) {
		return &wire.ElicitResult{Action: wire.ActionDecline}, nil
	}}
	cs := connectClient(t, newTestServer(t), ClientOptions(p, "default", nil), "2025-11-25")
	if got, want := callText(t, cs, "elicit"), `{"action":"decline"}`; got != want {
		t.Errorf("server got %s, want %s", got, want)
	}
}

func TestAdapterURLModeAndComplete(t *testing.T) {
	t.Parallel()
	p := &person{answer: accepting(nil)}
	cs := connectClient(t, newTestServer(t), ClientOptions(p, "default", nil), "2025-11-25")
	if got, want := callText(t, cs, "connect"), `{"action":"accept"}`; got != want {
		t.Errorf("server got %s, want %s", got, want)
	}
	asked := p.seen()
	if len(asked) != 1 || asked[0].Params.Mode != wire.ModeURL || asked[0].Params.URL != "https://calendar.example/connect?s=1" || asked[0].Params.ElicitationID != "cal-1" {
		t.Fatalf("person was shown %+v", asked)
	}
	// The notification travels after the tool's answer was sent; wait for it.
	waitFor(t, "the completion to be forwarded", func() bool { return len(p.done()) > 0 })
	if diff := cmp.Diff([]string{"default/cal-1"}, p.done()); diff != "" {
		t.Errorf("completions (-want +got):\n%s", diff)
	}
}

func TestAdapterDeclaresModes(t *testing.T) {
	formOnly := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
	}}
	tests := []struct {
		name string
		base *mcp.ClientOptions
		want string
	}{
		{"default declares both", nil, `{"form":{},"url":{}}`},
		{"host choice kept", formOnly, `{"form":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs := connectClient(t, newTestServer(t), ClientOptions(&person{answer: accepting(nil)}, "default", tt.base), "2025-11-25")
			if got := callText(t, cs, "caps"); got != tt.want {
				t.Errorf("declared %s, want %s", got, tt.want)
			}
		})
	}
}

func TestAdapterEliciterErrorReachesServer(t *testing.T) {
	t.Parallel()
	p := &person{answer: func(context.Context, wire.ElicitParams) (*wire.ElicitResult, error) {
		return nil, &wire.Error{Code: wire.CodeTooManyPending, Message: "too many pending"}
	}}
	cs := connectClient(t, newTestServer(t), ClientOptions(p, "default", nil), "2025-11-25")
	if got, want := callText(t, cs, "elicit"), `{"code":-32000}`; got != want {
		t.Errorf("server got %s, want %s", got, want)
	}
}

// A server that gives up on its request withdraws the elicitation: the
// Eliciter's context ends.
func TestAdapterServerCancelWithdraws(t *testing.T) {
	t.Parallel()
	withdrawn := make(chan error, 1)
	p := &person{answer: func(ctx context.Context, _ wire.ElicitParams) (*wire.ElicitResult, error) {
		<-ctx.Done()
		withdrawn <- ctx.Err()
		return nil, ctx.Err()
	}}
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "impatient"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Quick?", RequestedSchema: json.RawMessage(tripSchema)})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(err != nil)}}}, nil, nil
	})
	cs := connectClient(t, srv, ClientOptions(p, "default", nil), "2025-11-25")
	if got := callText(t, cs, "impatient"); got != "true" {
		t.Errorf("server's Elicit error = %s, want an error", got)
	}
	select {
	case err := <-withdrawn:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("eliciter context ended with %v, want canceled", err)
		}
	case <-time.After(patience):
		t.Fatal("the elicitation was not withdrawn after the server cancelled")
	}
}

func TestHandlerRefusesUndeclaredMode(t *testing.T) {
	form := &mcp.ElicitParams{Message: "m", RequestedSchema: map[string]any{"type": "object"}}
	url := &mcp.ElicitParams{Mode: "url", Message: "m", URL: "https://x.example", ElicitationID: "1"}
	tests := []struct {
		name      string
		form, url bool
		params    *mcp.ElicitParams
		wantCode  int64 // 0 = answered
	}{
		{"form declared", true, false, form, 0},
		{"url declared", false, true, url, 0},
		{"url undeclared", true, false, url, jsonrpc.CodeInvalidParams},
		{"form undeclared", false, true, form, jsonrpc.CodeInvalidParams},
		{"unknown mode", true, true, &mcp.ElicitParams{Mode: "sms", Message: "m"}, jsonrpc.CodeInvalidParams},
		{"no params", true, true, nil, jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &person{answer: accepting(nil)}
			h := &Handler{Eliciter: p, Channel: "default", Form: tt.form, URL: tt.url}
			_, err := h.Elicit(context.Background(), &mcp.ElicitRequest{Params: tt.params})
			var rpcErr *jsonrpc.Error
			switch {
			case tt.wantCode == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantCode == 0:
				// An absent mode is form, said so to the bridge.
				want := tt.params.Mode
				if want == "" {
					want = wire.ModeForm
				}
				if a := p.seen(); len(a) != 1 || a[0].Requester.Name != unnamedServer || a[0].Params.Mode != want {
					t.Errorf("person was shown %+v, want mode %q", a, want)
				}
			case !errors.As(err, &rpcErr) || rpcErr.Code != tt.wantCode:
				t.Fatalf("error %v, want code %d", err, tt.wantCode)
			case len(p.seen()) != 0:
				t.Errorf("a refused request reached the person")
			}
		})
	}
}

// A completion the bridge cannot take is dropped, logger or not.
func TestHandlerCompleteWithoutLogger(t *testing.T) {
	h := &Handler{Eliciter: &APIEliciter{}} // no channel: Complete fails at once
	h.Complete(context.Background(), &mcp.ElicitationCompleteNotificationRequest{Params: &mcp.ElicitationCompleteParams{ElicitationID: "auth-1"}})
}

// NewClient also handles -32042: the URL request is shown, its completion
// awaited, and the call retried once.
func TestNewClientURLElicitationRequired(t *testing.T) {
	const auth = `{"mode":"url","message":"Authorize","url":"https://auth.example/start","elicitationId":"auth-1"}`
	tests := []struct {
		name         string
		elicitations string // data.elicitations of the -32042
		action       string
		wantCalls    int32
		wantErr      bool
		wantShown    int
	}{
		{"accepted and completed", "[" + auth + "]", wire.ActionAccept, 2, false, 1},
		{"declined", "[" + auth + "]", wire.ActionDecline, 1, true, 1},
		// The bridge fails to ask ("" below): the server's -32042 comes back.
		{"bridge fails", "[" + auth + "]", "", 1, true, 1},
		// One completion releases both: asked once, retried once.
		{"listed twice", "[" + auth + "," + auth + "]", wire.ActionAccept, 2, false, 1},
		// A null entry must not crash the client.
		{"null entry", "[null]", wire.ActionAccept, 1, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			var ss atomic.Pointer[mcp.ServerSession]
			srv := mcp.NewServer(travelDesk, nil)
			mcp.AddTool(srv, &mcp.Tool{Name: "sync"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				ss.Store(req.Session)
				if calls.Add(1) == 1 {
					return nil, nil, &jsonrpc.Error{Code: wire.CodeURLElicitationRequired, Message: "authorization required",
						Data: json.RawMessage(`{"elicitations":` + tt.elicitations + `}`)}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "synced"}}}, nil, nil
			})
			p := &person{answer: func(ctx context.Context, ep wire.ElicitParams) (*wire.ElicitResult, error) {
				if tt.action == "" {
					return nil, errors.New("the bridge is gone")
				}
				if tt.action == wire.ActionAccept {
					go ss.Load().NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: ep.ElicitationID})
				}
				return &wire.ElicitResult{Action: tt.action}, nil
			}}
			st, ct := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(context.Background(), st, nil); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := NewClient(&mcp.Implementation{Name: "h", Version: "1"}, p, "default", nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sync"})
			if (err != nil) != tt.wantErr {
				t.Fatalf("CallTool error %v, want error %v", err, tt.wantErr)
			}
			if err == nil && res.Content[0].(*mcp.TextContent).Text != "synced" {
				t.Errorf("result %+v", res)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("server saw %d calls, want %d", got, tt.wantCalls)
			}
			if a := p.seen(); len(a) != tt.wantShown || (len(a) > 0 && a[0].Params.URL != "https://auth.example/start") {
				t.Errorf("person was shown %+v", a)
			}
		})
	}
}

// A local failure that wraps a JSON-RPC error keeps its whole story for
// the host: the go-sdk's "rejected by transport" alone does not say the
// upstream refused the connection. An error that is only the JSON-RPC
// error passes as it is.
func TestAsRPCErrorKeepsTheCause(t *testing.T) {
	base := &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}
	wrapped := fmt.Errorf("failed to send initialize upstream: %w: connection refused", base)
	got, ok := asRPCError(wrapped).(*jsonrpc.Error)
	if !ok || got.Code != -32005 || got.Message != wrapped.Error() {
		t.Errorf("asRPCError(wrapped) = %#v; want code -32005 with the whole message", got)
	}
	if asRPCError(base) != error(base) {
		t.Error("a bare JSON-RPC error was not passed as it is")
	}
	// The go-sdk's error for an HTTP upstream's dropped stream has code 0,
	// which JSON-RPC does not have: the host gets an internal error.
	dropped := &jsonrpc.Error{Message: "request terminated without response"}
	if got, ok := asRPCError(dropped).(*jsonrpc.Error); !ok || got.Code != jsonrpc.CodeInternalError || got.Message != dropped.Message {
		t.Errorf("asRPCError(code 0) = %#v; want -32603 with its message", got)
	}
}

// A server that never says its URL elicitation completed, and answers
// -32042 until the person has finished: NewClient asks the person once
// and sends the call again after growing waits until it goes through.
func TestNewClientURLRequiredRetriesUntilReady(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := calendarServer(&calls, 2)
	p := &person{answer: accepting(nil)}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := NewClient(&mcp.Implementation{Name: "h", Version: "1"}, p, "default", nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := callText(t, cs, "sync"); got != "synced" {
		t.Errorf("host got %q", got)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("the server saw %d calls, want 3", n)
	}
	if a := p.seen(); len(a) != 1 {
		t.Errorf("the person was asked %d times, want once", len(a))
	}
	if d := p.done(); len(d) != 1 || d[0] != "default/cal-1" {
		t.Errorf("widgets were told %v completed, want [default/cal-1]", d)
	}
}
