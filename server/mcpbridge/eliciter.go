package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
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
