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
					r = newURLRetry(h.Timeout)
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
				for id := range r.opened {
					if !r.completed[id] {
						h.Eliciter.Complete(h.Channel, id)
					}
				}
			}
			return res, err
		}
	}
}

func (h *Handler) completeURLs(ctx context.Context, cs *mcp.ClientSession, r *urlRetry, data json.RawMessage) error {
	if !time.Now().Before(r.deadline) {
		return r.timeUp()
	}
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

	askCtx, cancel := context.WithDeadline(ctx, r.deadline)
	defer cancel()
	asked := false
	for _, p := range d.Elicitations {
		if r.opened[p.ElicitationID] {
			continue
		}
		if !asked {
			asked = true
			if err := r.ask(); err != nil {
				return err
			}
		}
		res, err := h.Elicit(askCtx, &mcp.ElicitRequest{Session: cs, Params: p})
		if err != nil {
			if ctx.Err() == nil && askCtx.Err() != nil {
				return r.timeUp()
			}
			return err
		}
		if res.Action != wire.ActionAccept {
			return fmt.Errorf("the person answered %s to %s", res.Action, p.URL)
		}
		r.opened[p.ElicitationID] = true
	}
	again := time.NewTimer(min(r.next(), time.Until(r.deadline)))
	defer again.Stop()
	if ir := cs.InitializeResult(); ir != nil && ir.ProtocolVersion >= "2026-07-28" {
		// This revision has no completion notification: only a retry
		// can tell.
		waits = nil
	}
	for i, ch := range waits {
		select {
		case <-ch:
			r.completed[d.Elicitations[i].ElicitationID] = true
		case <-again.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if waits == nil {
		select {
		case <-again.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// urlRetry is the -32042 rounds of one request: the links the person has
// opened, and when to stop. A server need never say that a URL
// elicitation completed (2026-07-28 has no way to), and the only other
// way to learn is to send the request again: so it goes again when the
// server says so, or else after a wait that grows with each try, until
// the time is up. The person is asked only about links not yet opened.
type urlRetry struct {
	opened    map[string]bool // elicitation ids the person opened
	completed map[string]bool // and the server said it completed
	deadline  time.Time
	timeout   time.Duration
	tries     int // waits so far
	asks      int // rounds that asked the person
}

// The wait before sending a request again without word from the server:
// 1 s after the person opens the link, doubling to every 20 s. A person
// minutes in the other tab costs the server a few refused retries, and
// their result reaches the host within seconds of the server's "done".
const (
	urlRetryFirst = time.Second
	urlRetryMax   = 20 * time.Second
)

func newURLRetry(timeout time.Duration) *urlRetry {
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	return &urlRetry{opened: map[string]bool{}, completed: map[string]bool{}, deadline: time.Now().Add(timeout), timeout: timeout}
}

// next is the wait before the next retry.
func (r *urlRetry) next() time.Duration {
	d := min(urlRetryFirst<<min(r.tries, 8), urlRetryMax)
	r.tries++
	return d
}

// ask counts a round that puts links to the person, and fails past
// maxInputRounds: a server that lists new links at every retry would
// otherwise ask until the time is up.
func (r *urlRetry) ask() error {
	r.asks++
	if r.asks > maxInputRounds {
		return fmt.Errorf("the server listed new links to open more than %d times", maxInputRounds)
	}
	return nil
}

func (r *urlRetry) timeUp() error {
	return fmt.Errorf("the URL elicitations did not complete within %s", r.timeout)
}
