package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallOptions configure [Call].
type CallOptions struct {
	Upstream  Upstream
	Tool      string
	Arguments json.RawMessage // a JSON object; empty means {}
	Eliciter  Eliciter
	Channel   string
	// ProtocolVersion asks for a protocol version; "" = the go-sdk's newest.
	ProtocolVersion string
	ClientInfo      *mcp.Implementation // nil = formbridge
	Logger          *slog.Logger
	// Timeout is how long each question waits for the person, and a
	// link for its other tab; 0 = the Eliciter's default. A bridge
	// reached through its API (APIEliciter) hears it per question.
	Timeout time.Duration
}

// ErrRefused is wrapped by Call's error when the person declined or
// cancelled a question the tool asked, so scripts can tell a "no" from a
// failure.
var ErrRefused = errors.New("the person did not approve")

// Call connects to an MCP server as a client, calls one tool with its
// elicitations going to the Eliciter, and returns the tool's result. The
// error is non-nil when the call failed, the tool reported an error
// (the result is returned too), or the person refused (ErrRefused).
func Call(ctx context.Context, o CallOptions) (*mcp.CallToolResult, error) {
	if o.Tool == "" {
		return nil, errors.New("say which tool to call")
	}
	// Sent as written: decoding into a map would turn every number into
	// a float64, and 9007199254740993 would reach the tool as ...992.
	args := json.RawMessage(`{}`)
	if len(o.Arguments) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(o.Arguments, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("the tool's arguments must be a JSON object such as {\"name\":\"value\"}: %s", o.Arguments)
		}
		args = o.Arguments
	}
	cs, watch, err := connect(ctx, o)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: o.Tool, Arguments: args})
	refused := watch.refused()
	switch {
	case err != nil:
		return nil, fmt.Errorf("calling %s failed: %w", o.Tool, err)
	case refused == wire.ActionDecline:
		return res, fmt.Errorf("%w: they declined", ErrRefused)
	case refused != "":
		// cancel: the person skipped the question, or nobody answered it
		// in time (the bridge answers cancel then too).
		return res, fmt.Errorf("%w: no answer came (cancel: skipped, or it expired)", ErrRefused)
	case res.IsError:
		return res, fmt.Errorf("the tool %s reported an error", o.Tool)
	}
	return res, nil
}

// ListTools connects like Call and lists the server's tools (o.Tool and
// o.Arguments are not used).
func ListTools(ctx context.Context, o CallOptions) (*mcp.ListToolsResult, error) {
	cs, _, err := connect(ctx, o)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("listing the tools failed: %w", err)
	}
	return res, nil
}

func connect(ctx context.Context, o CallOptions) (*mcp.ClientSession, *refusals, error) {
	if o.Eliciter == nil {
		return nil, nil, errors.New("no Eliciter to show the questions")
	}
	t, err := o.Upstream.Transport()
	if err != nil {
		return nil, nil, err
	}
	info := o.ClientInfo
	if info == nil {
		info = &mcp.Implementation{Name: "formbridge", Version: "dev"}
	}
	watch := &refusals{Eliciter: o.Eliciter}
	client := newClient(info, watch, o.Channel, &mcp.ClientOptions{Logger: o.Logger}, o.Timeout)
	cs, err := client.Connect(ctx, Transport(t), &mcp.ClientSessionOptions{ProtocolVersion: o.ProtocolVersion})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to connect to the MCP server: %w", err)
	}
	return cs, watch, nil
}

// refusals remembers whether any answer was decline or cancel.
type refusals struct {
	Eliciter
	mu     sync.Mutex
	action string
}

// Widgets passes the count on, when the Eliciter knows it (-1 when not).
func (r *refusals) Widgets(channel string) int {
	if w, ok := r.Eliciter.(widgetCounter); ok {
		return w.Widgets(channel)
	}
	return -1
}

func (r *refusals) Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *hub.ElicitOptions) (*wire.ElicitResult, error) {
	res, err := r.Eliciter.Elicit(ctx, channel, requester, params, opts)
	if err == nil && res.Action != wire.ActionAccept {
		r.mu.Lock()
		if r.action == "" {
			r.action = res.Action
		}
		r.mu.Unlock()
	}
	return res, err
}

func (r *refusals) refused() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.action
}
