package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reference "everything" server (and any server on the TypeScript
// SDK) asks with extra.sendRequest, which does not tie its elicitation to
// the tool call's abort signal: when the host cancels the tool call, the
// handler is aborted but the elicitation/create stays outstanding, and no
// notifications/cancelled is sent for it. This server does the same: its
// Elicit does not end with the call. The host has given up, so nobody can
// use the person's answer: the question must leave the widget.
func TestProxyHostCancelWithdrawsWhenServerKeepsAsking(t *testing.T) {
	t.Parallel()
	withdrawn := make(chan struct{})
	p := &person{answer: func(ctx context.Context, _ wire.ElicitParams) (*wire.ElicitResult, error) {
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}}
	serverHeard := make(chan string, 1)
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		// Like the TypeScript SDK's extra.sendRequest: not cancelled with the call.
		res, err := req.Session.Elicit(context.WithoutCancel(ctx), &mcp.ElicitParams{Message: "Still there?", RequestedSchema: json.RawMessage(tripSchema)})
		switch {
		case err != nil:
			serverHeard <- "error: " + err.Error()
		default:
			serverHeard <- res.Action
		}
		return nil, nil, ctx.Err()
	})
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := px.host.CallTool(ctx, &mcp.CallToolParams{Name: "wait"})
		done <- err
	}()
	waitFor(t, "the person to be asked", func() bool { return len(p.seen()) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("host call ended with %v", err)
	}
	select {
	case <-withdrawn:
	case <-time.After(5 * time.Second):
		t.Fatal("the host cancelled its call, but the question it asked is still in front of the person (5 s later)")
	}
	// The server's own request should not wait out its timeout either.
	select {
	case got := <-serverHeard:
		if got != "cancel" {
			t.Errorf("the server's elicitation ended with %q, want the cancel action", got)
		}
	case <-time.After(5 * time.Second):
		t.Error("the server's elicitation got no answer after it was withdrawn")
	}
}

// The everything server's trigger-url-elicitation with errorPath: the
// first call fails with -32042 listing a link, and a retry of the same
// call goes ahead. Like many servers, it never sends
// notifications/elicitation/complete (the spec makes it a MAY, and says
// a client must not wait for it indefinitely). The person opened the
// link; the host has no elicitation support (that is why the proxy is
// there), so handing it the -32042 leaves it nothing to do.
func TestProxyURLRequiredRetriesWithoutCompletion(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "sync"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if calls.Add(1) == 1 {
			return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{
				Mode: "url", Message: "Open this link to satisfy the prerequisite, then retry the request.", URL: "https://modelcontextprotocol.io", ElicitationID: "pre-1",
			}})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "synced"}}}, nil, nil
	})
	p := &person{answer: accepting(nil)} // the person clicks Open link
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default", Timeout: time.Second}, "2025-11-25", nil)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	res, err := px.host.CallTool(ctx, &mcp.CallToolParams{Name: "sync"})
	if err != nil {
		t.Fatalf("the person opened the link, and the host got %v (upstream saw %d calls)", err, calls.Load())
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "synced" {
		t.Errorf("host got %q", got)
	}
}

// A server that never says its URL elicitation completed, and answers
// -32042 until the person has finished in the other tab: the proxy asks
// the person once, then sends the call again after growing waits until
// it goes through; the widget is told the step is finished.
func TestProxyURLRequiredRetriesUntilReady(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := calendarServer(&calls, 2)
	p := &person{answer: accepting(nil)}
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
	if got := callText(t, px.host, "sync"); got != "synced" {
		t.Errorf("host got %q", got)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("upstream saw %d calls, want 3", n)
	}
	if a := p.seen(); len(a) != 1 {
		t.Errorf("the person was asked %d times, want once: %+v", len(a), a)
	}
	if d := p.done(); len(d) != 1 || d[0] != "default/cal-1" {
		t.Errorf("widgets were told %v completed, want [default/cal-1]", d)
	}
}

// calendarServer's sync tool answers its first failures calls with
// -32042 (a link to connect a calendar, "cal-1"), and never says the link
// completed; calls counts them.
func calendarServer(calls *atomic.Int32, failures int32) *mcp.Server {
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "sync"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if calls.Add(1) <= failures {
			return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{
				Mode: "url", Message: "Connect your calendar", URL: "https://auth.example/start", ElicitationID: "cal-1",
			}})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "synced"}}}, nil, nil
	})
	return srv
}
