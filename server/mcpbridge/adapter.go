package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientOptions returns a copy of base (nil means the go-sdk defaults)
// whose elicitations go to a person on the formbridge channel:
//
//	client := mcp.NewClient(impl, mcpbridge.ClientOptions(hub, "default", nil))
//
// It declares elicitation {form:{}, url:{}} unless base already declares
// elicitation modes, in which case those are kept and enforced. The other
// capabilities in base are kept as they are. At protocol 2026-07-28 the
// go-sdk answers a server's input requests through the same handler, so
// nothing more is needed there.
//
// Wrap the client's transport with [Transport] to show form fields in the
// order the server wrote them; without it they are shown sorted by key.
func ClientOptions(e Eliciter, channel string, base *mcp.ClientOptions) *mcp.ClientOptions {
	opts, _ := clientOptions(e, channel, base)
	return opts
}

// NewClient is mcp.NewClient with [ClientOptions], plus the handling of
// -32042 (URL elicitation required) that options alone cannot add: the
// person is shown each listed URL request and, once the server says they
// completed, the request is sent again, once.
func NewClient(impl *mcp.Implementation, e Eliciter, channel string, base *mcp.ClientOptions) *mcp.Client {
	return newClient(impl, e, channel, base, 0)
}

// newClient is NewClient with a timeout for each question and for a URL
// elicitation's completion (0: the eliciter's default).
func newClient(impl *mcp.Implementation, e Eliciter, channel string, base *mcp.ClientOptions, timeout time.Duration) *mcp.Client {
	opts, h := clientOptions(e, channel, base)
	h.Timeout = timeout
	c := mcp.NewClient(impl, opts)
	c.AddSendingMiddleware(h.URLRequired())
	return c
}

func clientOptions(e Eliciter, channel string, base *mcp.ClientOptions) (*mcp.ClientOptions, *Handler) {
	var opts mcp.ClientOptions
	if base != nil {
		opts = *base
	}
	var caps mcp.ClientCapabilities
	if opts.Capabilities != nil {
		caps = *opts.Capabilities
	} else {
		// The go-sdk's default when Capabilities is nil; setting
		// Capabilities replaces it, so restate it.
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	if caps.Elicitation == nil {
		caps.Elicitation = &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{},
			URL:  &mcp.URLElicitationCapabilities{},
		}
	}
	opts.Capabilities = &caps

	h := &Handler{
		Eliciter: e,
		Channel:  channel,
		Form:     caps.Elicitation.Form != nil || caps.Elicitation.URL == nil, // {} alone means form
		URL:      caps.Elicitation.URL != nil,
		Logger:   opts.Logger,
	}
	opts.ElicitationHandler = h.Elicit
	opts.ElicitationCompleteHandler = h.Complete
	return &opts, h
}

// Handler answers a go-sdk client's elicitations through an Eliciter.
// [ClientOptions] builds one; use it directly to chain it with your own
// handlers. Its methods are safe for concurrent use once its fields are
// set (the go-sdk calls them for concurrent requests); do not copy it.
type Handler struct {
	Eliciter Eliciter
	Channel  string
	// Form and URL are the modes the client declared. A request in another
	// mode is refused with -32602, as the spec requires of a client.
	Form, URL bool
	// Timeout overrides the hub's default expiry per request when > 0.
	Timeout time.Duration
	Logger  *slog.Logger // nil = discard

	waits completions // URL elicitations a retry waits on
}

// Elicit is a go-sdk ElicitationHandler.
func (h *Handler) Elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req == nil || req.Params == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "elicitation/create without params"}
	}
	mode, err := h.checkMode(req.Params.Mode)
	if err != nil {
		return nil, err
	}
	raw, err := paramsJSON(req.Params, mode)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	var opts *hub.ElicitOptions
	if h.Timeout > 0 {
		opts = &hub.ElicitOptions{Timeout: h.Timeout}
	}
	warnIfNobodyWatches(h.Logger, h.Eliciter, h.Channel, requesterOf(req.Session))
	res, err := h.Eliciter.Elicit(ctx, h.Channel, requesterOf(req.Session), raw, opts)
	if err != nil {
		return nil, rpcError(err)
	}
	return &mcp.ElicitResult{Action: res.Action, Content: res.Content}, nil
}

// Complete is a go-sdk ElicitationCompleteHandler: it forwards URL-mode
// completion to the widgets. An unknown id is not an error worth more than
// a debug line (the spec says to ignore it).
func (h *Handler) Complete(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	if req == nil || req.Params == nil || req.Params.ElicitationID == "" {
		return
	}
	h.waits.complete(req.Params.ElicitationID)
	if err := h.Eliciter.Complete(h.Channel, req.Params.ElicitationID); err != nil && h.Logger != nil {
		h.Logger.Debug("elicitation complete not forwarded", "elicitationId", req.Params.ElicitationID, "err", err)
	}
}

// checkMode resolves an absent mode to form (as the spec reads it) and
// refuses modes the client did not declare.
func (h *Handler) checkMode(mode string) (string, error) {
	if mode == "" {
		mode = wire.ModeForm
	}
	switch {
	case mode == wire.ModeForm && h.Form, mode == wire.ModeURL && h.URL:
		return mode, nil
	}
	return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q was not declared by this client", mode)}
}

// paramsJSON encodes the params for the hub with the mode made explicit
// and the requested schema in the server's own property order when
// [Transport] saw it arrive.
func paramsJSON(p *mcp.ElicitParams, mode string) (json.RawMessage, error) {
	cp := *p
	cp.Mode = mode
	if cp.RequestedSchema != nil {
		if raw, ok := schemas.recall(cp.RequestedSchema); ok {
			cp.RequestedSchema = raw
		}
	}
	b, err := json.Marshal(&cp)
	if err != nil {
		return nil, fmt.Errorf("failed to encode elicitation params: %w", err)
	}
	return b, nil
}

// requesterOf names the server that asks, from its initialize (or, at
// 2026-07-28, discover) answer, so the person sees who wants what.
func requesterOf(cs *mcp.ClientSession) wire.Implementation {
	if cs != nil {
		if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil {
			return implementation(r.ServerInfo)
		}
	}
	return wire.Implementation{Name: unnamedServer}
}

const unnamedServer = "unnamed MCP server"

func implementation(i *mcp.Implementation) wire.Implementation {
	if i == nil || i.Name == "" {
		return wire.Implementation{Name: unnamedServer}
	}
	return wire.Implementation{Name: i.Name, Title: i.Title, Version: i.Version}
}
