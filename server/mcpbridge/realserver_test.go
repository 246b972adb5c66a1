package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	p, withdrawn := waitingPerson()
	serverHeard := make(chan string, 1)
	srv := keepsAskingServer(serverHeard)
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := callAsync(ctx, px.host, "wait")
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

// lagUp hands the proxy an upstream elicitation/create it has already
// read only after lag: the proxy's upstream reader is a goroutine of its
// own, and the host's cancel can be handled first.
type lagUp struct {
	mcp.Connection
	lag  time.Duration
	once sync.Once
	read chan struct{}
}

func (l *lagUp) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := l.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == methodElicit {
		l.once.Do(func() { close(l.read) })
		time.Sleep(l.lag)
	}
	return m, err
}

// The server asks during the call (as the TypeScript SDK does, not tied
// to it); the proxy has already read the question off the wire when the
// host cancels the call, but handles it a moment later, when the call
// has left its books. The question must still be withdrawn, not left in
// front of the person until --timeout.
func TestProxyHostCancelWithdrawsQuestionCrossingIt(t *testing.T) {
	t.Parallel()
	p, withdrawn := waitingPerson()
	srv := keepsAskingServer(make(chan string, 1))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	st, ut := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	upConn, err := ut.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lag := &lagUp{Connection: upConn, lag: 200 * time.Millisecond, read: make(chan struct{})}
	cs, _ := connectThrough(t, ctx, &Proxy{Eliciter: p, Channel: "default"}, lag, mcp.NewClient(&mcp.Implementation{Name: "h", Version: "1"}, nil), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	defer cs.Close()

	callCtx, cancel := context.WithCancel(ctx)
	done := callAsync(callCtx, cs, "wait")
	<-lag.read // the question is in the proxy's hands
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("host call ended with %v", err)
	}
	waitFor(t, "the person to be asked", func() bool { return len(p.seen()) == 1 })
	select {
	case <-withdrawn:
	case <-time.After(3 * time.Second):
		t.Fatal("the host cancelled the call during which the server asked, but the question is still in front of the person 3 s later")
	}
}

// A server that lists a fresh elicitationId with each -32042 for the same
// link (a uuid per error, as many servers write it) until the person has
// finished there: the link opened once is not put to the person again at
// each retry while they are still in the other tab.
func TestProxyURLRequiredSameLinkNewID(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "sync"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		n := calls.Add(1)
		if n <= 2 {
			return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{
				Mode: "url", Message: "Connect your calendar", URL: "https://auth.example/start", ElicitationID: "cal-" + string(rune('0'+n)),
			}})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "synced"}}}, nil, nil
	})
	p := &person{answer: accepting(nil)}
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
	if got := callText(t, px.host, "sync"); got != "synced" {
		t.Errorf("host got %q", got)
	}
	if a := p.seen(); len(a) != 1 {
		urls := []string{}
		for _, s := range a {
			urls = append(urls, s.Params.URL+" ("+s.Params.ElicitationID+")")
		}
		t.Errorf("the person was asked to open the same link %d times: %v", len(a), urls)
	}
}

// The person finishes while a retry is on its way: the server, having
// checked just before, says the step completed and answers that retry
// with -32042 once more. That "done" must still send the call again at
// once, not after the next growing wait.
func TestProxyURLCompletionBetweenRounds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var doneAt, thirdAt atomic.Int64
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "sync"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		switch calls.Add(1) {
		case 1:
		case 2:
			// Not ready when checked; the person finishes now.
			doneAt.Store(time.Now().UnixNano())
			req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "cal-1"})
		default:
			thirdAt.Store(time.Now().UnixNano())
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "synced"}}}, nil, nil
		}
		return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{
			Mode: "url", Message: "Connect your calendar", URL: "https://auth.example/start", ElicitationID: "cal-1",
		}})
	})
	p := &person{answer: accepting(nil)}
	px := startProxy(t, srv, &Proxy{Eliciter: p, Channel: "default"}, "2025-11-25", nil)
	if got := callText(t, px.host, "sync"); got != "synced" {
		t.Errorf("host got %q", got)
	}
	if d := time.Duration(thirdAt.Load() - doneAt.Load()); d > 500*time.Millisecond {
		t.Errorf("the server said the step completed, and the call went again only %v later (want at once)", d.Round(10*time.Millisecond))
	}
}

// keepsAskingServer's wait tool asks the person a question that, like the
// TypeScript SDK's extra.sendRequest, is not cancelled with the call; how
// the question ended (its action, or "error: …") goes to heard.
func keepsAskingServer(heard chan<- string) *mcp.Server {
	srv := mcp.NewServer(travelDesk, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(context.WithoutCancel(ctx), &mcp.ElicitParams{Message: "Still there?", RequestedSchema: json.RawMessage(tripSchema)})
		if err != nil {
			heard <- "error: " + err.Error()
		} else {
			heard <- res.Action
		}
		return nil, nil, ctx.Err()
	})
	return srv
}
