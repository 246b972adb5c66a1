package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URLRequired is a go-sdk sending middleware for -32042 (URL elicitation
// required): it shows the person each URL request the error lists, waits
// until the server says each completed (before 2026-07-28; that revision
// has no completion notification, so the person's accept is enough), and
// sends the request again, once. A decline or cancel returns the
// original error. [NewClient] installs it.
func (h *Handler) URLRequired() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			var rpcErr *jsonrpc.Error
			if err == nil || strings.HasPrefix(method, "notifications/") || !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeURLElicitationRequired {
				return res, err
			}
			cs, ok := req.GetSession().(*mcp.ClientSession)
			if !ok {
				return res, err
			}
			if werr := h.completeURLs(ctx, cs, rpcErr.Data); werr != nil {
				if h.Logger != nil {
					h.Logger.Info("not retrying after URL elicitation", "method", method, "reason", werr)
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}

func (h *Handler) completeURLs(ctx context.Context, cs *mcp.ClientSession, data json.RawMessage) error {
	var d struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if err := json.Unmarshal(data, &d); err != nil || len(d.Elicitations) == 0 {
		return errors.New("-32042 without elicitations")
	}
	waits := make([]chan struct{}, 0, len(d.Elicitations))
	var owned []string // ids this call registered, and so removes
	defer func() {
		h.mu.Lock()
		for _, id := range owned {
			delete(h.waits, id)
		}
		h.mu.Unlock()
	}()
	// Registered before the person is asked: completion may arrive the
	// moment they open the link. An id already awaited (listed twice, or
	// by another call) shares its channel, which one notification closes.
	h.mu.Lock()
	if h.waits == nil {
		h.waits = map[string]chan struct{}{}
	}
	for _, p := range d.Elicitations {
		if p == nil || p.Mode != wire.ModeURL || p.ElicitationID == "" {
			h.mu.Unlock()
			return errors.New("-32042 lists something that is not a URL elicitation")
		}
		ch, ok := h.waits[p.ElicitationID]
		if !ok {
			ch = make(chan struct{})
			h.waits[p.ElicitationID] = ch
			owned = append(owned, p.ElicitationID)
		}
		waits = append(waits, ch)
	}
	h.mu.Unlock()

	asked := map[string]bool{}
	for _, p := range d.Elicitations {
		if asked[p.ElicitationID] {
			continue
		}
		asked[p.ElicitationID] = true
		res, err := h.Elicit(ctx, &mcp.ElicitRequest{Session: cs, Params: p})
		if err != nil {
			return err
		}
		if res.Action != wire.ActionAccept {
			return fmt.Errorf("the person answered %s to %s", res.Action, p.URL)
		}
	}
	if r := cs.InitializeResult(); r != nil && r.ProtocolVersion >= "2026-07-28" {
		return nil
	}
	wait := h.Timeout
	if wait <= 0 {
		wait = 10 * time.Minute
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for i, ch := range waits {
		select {
		case <-ch:
		case <-timer.C:
			return fmt.Errorf("URL elicitation %s did not complete within %s", d.Elicitations[i].ElicitationID, wait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
