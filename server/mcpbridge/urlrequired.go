package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URLRequired is a go-sdk sending middleware for -32042 (URL elicitation
// required): it shows the person each URL request the error lists and
// sends the request again once the server says each completed, or after
// a wait (urlRetry; 2026-07-28 has no completion notification), until it
// goes through or the time is up. A decline or cancel, or the time up,
// returns the server's -32042. [NewClient] installs it.
func (h *Handler) URLRequired() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			cs, ok := req.GetSession().(*mcp.ClientSession)
			if !ok || strings.HasPrefix(method, "notifications/") {
				return res, err
			}
			var r *urlRetry
			for {
				var rpcErr *jsonrpc.Error
				if err == nil || !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeURLElicitationRequired {
					break
				}
				if r == nil {
					r = newURLRetry(h.Timeout, &h.waits)
					defer r.done()
				}
				if werr := h.completeURLs(ctx, cs, r, rpcErr.Data); werr != nil {
					if h.Logger != nil {
						h.Logger.Info("not retrying after URL elicitation", "method", method, "reason", werr)
					}
					return res, err
				}
				res, err = next(ctx, method, req)
			}
			// The links were followed: tell the widgets, where the server
			// did not say so itself.
			if r != nil && err == nil {
				for _, id := range r.untold() {
					h.Eliciter.Complete(h.Channel, id)
				}
			}
			return res, err
		}
	}
}

func (h *Handler) completeURLs(ctx context.Context, cs *mcp.ClientSession, r *urlRetry, data json.RawMessage) error {
	var d struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if err := json.Unmarshal(data, &d); err != nil || len(d.Elicitations) == 0 {
		return errors.New("-32042 without elicitations")
	}
	links := make([]urlLink, len(d.Elicitations))
	for i, p := range d.Elicitations {
		if p == nil || p.Mode != wire.ModeURL || p.ElicitationID == "" {
			return errors.New("-32042 lists something that is not a URL elicitation")
		}
		links[i] = urlLink{p.ElicitationID, p.URL}
	}
	ir := cs.InitializeResult()
	notified := ir == nil || ir.ProtocolVersion < "2026-07-28" // that revision has no completion notification
	return r.round(ctx, links, notified, func(ctx context.Context, pending []int) error {
		for _, i := range pending {
			p := d.Elicitations[i]
			res, err := h.Elicit(ctx, &mcp.ElicitRequest{Session: cs, Params: p})
			if err != nil {
				return err
			}
			if res.Action != wire.ActionAccept {
				return fmt.Errorf("the person answered %s to %s", res.Action, p.URL)
			}
		}
		return nil
	})
}
