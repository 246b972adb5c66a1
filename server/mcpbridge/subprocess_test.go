package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCallSubprocess(t *testing.T) {
	decline := func(context.Context, wire.ElicitParams) (*wire.ElicitResult, error) {
		return &wire.ElicitResult{Action: wire.ActionDecline}, nil
	}
	tests := []struct {
		name, tool, args, protocol string
		answer                     func(context.Context, wire.ElicitParams) (*wire.ElicitResult, error)
		want                       string // the result's text
		wantErr                    error  // nil, ErrRefused, or errAny
	}{
		{"plain tool", "add", `{"a":20,"b":22}`, "", nil, "42", nil},
		// Numbers past float64's precision reach the tool as written.
		{"arguments as written", "echo", `{"id":9007199254740993,"n":12345678901234567890,"f":1.10}`, "", nil, `{"id":9007199254740993,"n":12345678901234567890,"f":1.10}`, nil},
		{"approved 2025-11-25", "book", "", "2025-11-25", accepting(map[string]any{"zeta": "Bern", "alpha": 1, "mid": false}),
			`{"action":"accept","content":{"alpha":1,"mid":false,"zeta":"Bern"}}`, nil},
		{"approved 2026-07-28", "book", "", "2026-07-28", accepting(map[string]any{"zeta": "Bern", "alpha": 1, "mid": false}),
			`{"action":"accept","content":{"alpha":1,"mid":false,"zeta":"Bern"}}`, nil},
		{"declined", "book", "", "2025-11-25", decline, `{"action":"decline"}`, ErrRefused},
		{"tool error", "fail", "", "", nil, "the printer is on fire", errAny},
		{"unknown tool", "nope", "", "", nil, "", errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &person{answer: tt.answer}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := Call(ctx, CallOptions{
				Upstream:        Upstream{Command: []string{testServerBin}},
				Tool:            tt.tool,
				Arguments:       json.RawMessage(tt.args),
				Eliciter:        p,
				Channel:         "default",
				ProtocolVersion: tt.protocol,
			})
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("Call: %v", err)
			case tt.wantErr == errAny && err == nil:
				t.Fatal("Call succeeded, want an error")
			case tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("Call error %v, want %v", err, tt.wantErr)
			}
			if tt.want == "" {
				return
			}
			if res == nil || len(res.Content) == 0 {
				t.Fatalf("no result content; err %v", err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != tt.want {
				t.Errorf("result %s, want %s", got, tt.want)
			}
			if tt.answer != nil {
				a := p.seen()
				if len(a) != 1 || a[0].Requester.Name != "subprocess-desk" {
					t.Fatalf("person was shown %+v", a)
				}
				if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, a[0].Keys); diff != "" {
					t.Errorf("field order (-want +got):\n%s", diff)
				}
			}
		})
	}
}

var errAny = errors.New("any error")

func TestCallRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		o    CallOptions
		want string
	}{
		{"no tool", CallOptions{Upstream: Upstream{URL: "http://127.0.0.1:1/mcp"}}, "which tool"},
		{"args not an object", CallOptions{Upstream: Upstream{URL: "http://127.0.0.1:1/mcp"}, Tool: "t", Arguments: json.RawMessage(`[1]`)}, "JSON object"},
		{"no server", CallOptions{Tool: "t"}, "which MCP server"},
		{"both servers", CallOptions{Tool: "t", Upstream: Upstream{URL: "http://x", Command: []string{"y"}}}, "not both"},
		{"bad url", CallOptions{Tool: "t", Upstream: Upstream{URL: "ftp://x"}}, "http:// or https://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.o.Eliciter = &person{answer: accepting(nil)}
			_, err := Call(context.Background(), tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// The proxy in front of a real subprocess: a call that elicits works, and
// when the process dies mid-call the host gets an error and the question
// is withdrawn.
func TestProxySubprocess(t *testing.T) {
	t.Parallel()
	withdrawn := make(chan struct{}, 1)
	p := &person{}
	p.answer = func(ctx context.Context, ep wire.ElicitParams) (*wire.ElicitResult, error) {
		if ep.Message == "Wait for me" {
			<-ctx.Done()
			withdrawn <- struct{}{}
			return nil, ctx.Err()
		}
		return accepting(map[string]any{"zeta": "Nice", "alpha": 2, "mid": true})(ctx, ep)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	up, err := Upstream{Command: []string{testServerBin}}.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs, serve := hostThrough(t, ctx, &Proxy{Eliciter: p, Channel: "default"}, up, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	defer cs.Close()

	if got, want := callText(t, cs, "book"), `{"action":"accept","content":{"alpha":2,"mid":true,"zeta":"Nice"}}`; got != want {
		t.Errorf("upstream got %s, want %s", got, want)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "5" {
		t.Errorf("add through the proxy: %v %+v", err, res)
	}

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "crash"})
	if err == nil || !strings.Contains(err.Error(), ErrUpstreamClosed.Error()) {
		t.Errorf("host call ended with %v, want the upstream's exit", err)
	}
	select {
	case <-withdrawn:
	case <-time.After(patience):
		t.Error("the crashed server's question was not withdrawn")
	}
	select {
	case err := <-serve:
		if !errors.Is(err, ErrUpstreamClosed) {
			t.Errorf("Serve returned %v, want ErrUpstreamClosed", err)
		}
	case <-time.After(patience):
		t.Fatal("Serve did not return after the upstream died")
	}
}

// timedPerson records the timeout each question was asked with.
type timedPerson struct {
	*person
	mu       sync.Mutex
	timeouts []time.Duration
}

func (p *timedPerson) Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *hub.ElicitOptions) (*wire.ElicitResult, error) {
	var d time.Duration
	if opts != nil {
		d = opts.Timeout
	}
	p.mu.Lock()
	p.timeouts = append(p.timeouts, d)
	p.mu.Unlock()
	return p.person.Elicit(ctx, channel, requester, params, opts)
}

// CallOptions.Timeout reaches each question, so a bridge reached through
// its API (call --bridge) expires it then, not at its own default.
func TestCallTimeoutReachesEachQuestion(t *testing.T) {
	p := &timedPerson{person: &person{answer: func(context.Context, wire.ElicitParams) (*wire.ElicitResult, error) {
		return &wire.ElicitResult{Action: wire.ActionDecline}, nil
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Call(ctx, CallOptions{
		Upstream:        Upstream{Command: []string{testServerBin}},
		Tool:            "book",
		Eliciter:        p,
		Channel:         "default",
		ProtocolVersion: "2025-11-25",
		Timeout:         90 * time.Second,
	})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Call: %v; want the person's refusal", err)
	}
	if len(p.timeouts) != 1 || p.timeouts[0] != 90*time.Second {
		t.Errorf("questions asked with timeouts %v; want [1m30s]", p.timeouts)
	}
}
