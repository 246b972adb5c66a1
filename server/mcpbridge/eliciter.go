package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Eliciter puts an elicitation in front of a person and returns their
// answer. *hub.Hub implements it; tests use fakes.
type Eliciter interface {
	Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *hub.ElicitOptions) (*wire.ElicitResult, error)
	Complete(channel, elicitationID string) error
}

// rpcError turns an Eliciter error into the JSON-RPC error an MCP server
// should see. The hub reports schema problems, limits and rate limits as
// *wire.Error with MCP-compatible codes; those pass through with their data.
// Anything else is an internal error: the server learns the request failed,
// not why the bridge broke.
func rpcError(err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc.Error
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &je) {
		return err
	}
	var we *wire.Error
	if errors.As(err, &we) {
		out := &jsonrpc.Error{Code: int64(we.Code), Message: we.Message}
		if we.Data != nil {
			if data, merr := json.Marshal(we.Data); merr == nil {
				out.Data = data
			}
		}
		return out
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("formbridge could not show the elicitation: %v", err)}
}

// widgetCounter is an Eliciter that knows how many widgets are open on a
// channel (*hub.Hub does; a bridge reached through its API does not).
type widgetCounter interface {
	Widgets(channel string) int
}

// warnIfNobodyWatches logs a warning when a question goes to a channel
// no widget has open: it waits, unseen, until it expires, and the log
// (which hosts show) is where the person can learn why.
func warnIfNobodyWatches(log *slog.Logger, e Eliciter, channel string, requester wire.Implementation) {
	if w, ok := e.(widgetCounter); ok && log != nil && w.Widgets(channel) == 0 {
		log.Warn("a question is waiting and no widget is open to answer it: open the widget link formbridge printed when it started", "from", requester.DisplayName(), "channel", channel)
	}
}
