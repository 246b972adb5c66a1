package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// elicitationCaps is what the proxy declares upstream for the host.
var elicitationCaps = json.RawMessage(`{"form":{},"url":{}}`)

// declareElicitation adds elicitation {form, url} to the capabilities a
// host request declares: initialize's capabilities, and at 2026-07-28 the
// clientCapabilities in each request's _meta. The rest is kept as sent.
func declareElicitation(method string, params json.RawMessage) json.RawMessage {
	if method == methodInitialize {
		if out, err := withCapability(params, "capabilities"); err == nil {
			return out
		}
		return params
	}
	if !bytes.Contains(params, []byte(mcp.MetaKeyClientCapabilities)) {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	meta, err := withCapability(p["_meta"], mcp.MetaKeyClientCapabilities)
	if err != nil {
		return params
	}
	p["_meta"] = meta
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// withCapability sets obj[key].elicitation.
func withCapability(obj json.RawMessage, key string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, err
	}
	caps, err := setField(m[key], "elicitation", elicitationCaps)
	if err != nil {
		return nil, err
	}
	return setField(obj, key, caps)
}

// noteProtocol records the protocol version a 2026-07-28 request carries.
func (s *session) noteProtocol(params json.RawMessage) {
	if !bytes.Contains(params, []byte(mcp.MetaKeyProtocolVersion)) {
		return
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var v string
	if json.Unmarshal(params, &p) == nil && json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &v) == nil && v != "" {
		s.mu.Lock()
		s.protocol = v
		s.mu.Unlock()
	}
}

// noteServer records who the upstream is, from its initialize or
// server/discover answer: the requester the person sees.
func (s *session) noteServer(method string, resp *jsonrpc.Response) {
	if resp.Error != nil || (method != methodInitialize && method != methodDiscover) {
		return
	}
	var r struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		ServerInfo      *mcp.Implementation        `json:"serverInfo"`
		Meta            map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(resp.Result, &r) != nil {
		return
	}
	if r.ServerInfo == nil {
		if raw, ok := r.Meta[mcp.MetaKeyServerInfo]; ok {
			_ = json.Unmarshal(raw, &r.ServerInfo)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.ServerInfo != nil {
		s.server = implementation(r.ServerInfo)
	}
	if r.ProtocolVersion != "" {
		s.protocol = r.ProtocolVersion
	}
}

// resolve answers input_required results and -32042 errors through the
// person until the upstream gives a final answer for the host.
func (s *session) resolve(c *call, params json.RawMessage, resp *jsonrpc.Response) (*jsonrpc.Response, error) {
	var urls *urlRetry // the -32042 rounds, once one came
	for round := 1; ; round++ {
		if reqs, state, ok := inputRequired(resp); ok {
			if round > maxInputRounds {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("upstream asked for input more than %d times for one %s", maxInputRounds, c.method)}
			}
			answers, err := s.answerInputs(c.ctx, reqs)
			if err != nil {
				return nil, err
			}
			if params, err = withInputResponses(params, answers, state); err != nil {
				return nil, err
			}
			if resp, err = s.roundTrip(c, params); err != nil {
				return nil, err
			}
			continue
		}
		if elicitations, ok := urlRequired(resp); ok {
			if urls == nil {
				urls = newURLRetry(s.p.Timeout, &s.urls)
				defer urls.done()
			}
			if err := s.completeURLs(c.ctx, urls, elicitations); err != nil {
				if errors.Is(err, errNoReply) {
					return nil, err
				}
				s.log.Info("not retrying after URL elicitation", "method", c.method, "reason", err)
				return resp, nil // the host sees the upstream's -32042
			}
			var err error
			if resp, err = s.roundTrip(c, params); err != nil {
				return nil, err
			}
			continue
		}
		// The links were followed: tell the widgets, where the server
		// did not say so itself.
		if urls != nil && resp.Error == nil {
			for _, id := range urls.untold() {
				s.p.Eliciter.Complete(s.p.Channel, id)
			}
		}
		return resp, nil
	}
}

// inputRequired reports a 2026-07-28 input_required result whose input
// requests are all elicitations (the only kind formbridge answers; others
// go to the host as they are).
func inputRequired(resp *jsonrpc.Response) (map[string]json.RawMessage, json.RawMessage, bool) {
	if resp.Error != nil || !bytes.Contains(resp.Result, []byte(`"input_required"`)) {
		return nil, nil, false
	}
	var r struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState json.RawMessage `json:"requestState"`
	}
	if json.Unmarshal(resp.Result, &r) != nil || r.ResultType != "input_required" || len(r.InputRequests) == 0 {
		return nil, nil, false
	}
	reqs := make(map[string]json.RawMessage, len(r.InputRequests))
	for k, ir := range r.InputRequests {
		if ir.Method != methodElicit {
			return nil, nil, false
		}
		reqs[k] = ir.Params
	}
	return reqs, r.RequestState, true
}

// answerInputs shows every input request at once and collects the answers.
func (s *session) answerInputs(ctx context.Context, reqs map[string]json.RawMessage) (map[string]*wire.ElicitResult, error) {
	if len(reqs) > maxInputRequests {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("the upstream asked %d questions at once; formbridge shows at most %d", len(reqs), maxInputRequests)}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		answers  = make(map[string]*wire.ElicitResult, len(reqs))
		firstErr error
	)
	for k, params := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.elicit(ctx, params)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel() // withdraw the others: the round failed
				}
				return
			}
			answers[k] = res
		}()
	}
	wg.Wait()
	if firstErr != nil {
		if ctx.Err() != nil && errors.Is(firstErr, context.Canceled) {
			return nil, s.whyDone()
		}
		return nil, firstErr
	}
	return answers, nil
}

// whyDone explains why a call's context ended.
func (s *session) whyDone() error {
	s.mu.Lock()
	gone := s.upErr != nil
	s.mu.Unlock()
	if gone {
		return s.goneError()
	}
	return errNoReply
}

// withInputResponses returns the params of the retry: the original ones
// with inputResponses set and requestState echoed byte for byte.
func withInputResponses(params json.RawMessage, answers map[string]*wire.ElicitResult, state json.RawMessage) (json.RawMessage, error) {
	out, err := setField(params, "inputResponses", answers)
	if err != nil {
		return nil, fmt.Errorf("failed to build the retry's params: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	delete(m, "requestState")
	if len(state) > 0 && string(state) != "null" {
		m["requestState"] = state
	}
	return json.Marshal(m)
}

// urlRequired reports a -32042 error and the URL elicitations it lists.
func urlRequired(resp *jsonrpc.Response) ([]json.RawMessage, bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(resp.Error, &rpcErr) || rpcErr.Code != wire.CodeURLElicitationRequired {
		return nil, false
	}
	var d struct {
		Elicitations []json.RawMessage `json:"elicitations"`
	}
	if json.Unmarshal(rpcErr.Data, &d) != nil || len(d.Elicitations) == 0 {
		return nil, false
	}
	return d.Elicitations, true
}

// completeURLs shows the person each URL elicitation they have not yet
// opened, all at once, then waits until the upstream says each one
// completed, or until it is time to ask the upstream again (urlRetry).
// It fails when the person did not open one, or the time is up.
func (s *session) completeURLs(callCtx context.Context, r *urlRetry, elicitations []json.RawMessage) error {
	links := make([]urlLink, len(elicitations))
	for i, raw := range elicitations {
		var p wire.ElicitParams
		if err := json.Unmarshal(raw, &p); err != nil || !p.IsURL() || p.ElicitationID == "" {
			return fmt.Errorf("-32042 lists something that is not a URL elicitation: %s", raw)
		}
		links[i] = urlLink{p.ElicitationID, p.URL}
	}
	s.mu.Lock()
	notified := s.protocol < "2026-07-28" // that revision has no completion notification
	s.mu.Unlock()
	err := r.round(callCtx, links, notified, func(ctx context.Context, pending []int) error {
		reqs := make(map[string]json.RawMessage, len(pending))
		for _, i := range pending {
			reqs[links[i].id] = elicitations[i]
		}
		results, err := s.answerInputs(ctx, reqs)
		if err != nil {
			return err
		}
		for id, res := range results {
			if res.Action != wire.ActionAccept {
				return fmt.Errorf("the person answered %s to URL elicitation %s", res.Action, id)
			}
		}
		return nil
	})
	if err != nil && callCtx.Err() != nil {
		return s.whyDone() // the host no longer wants the call, or the session ended
	}
	return err
}

// urlCompleted handles notifications/elicitation/complete from upstream:
// it releases a -32042 retry waiting for it and tells the widgets.
func (s *session) urlCompleted(params json.RawMessage) {
	var p wire.CompleteParams
	if json.Unmarshal(params, &p) != nil || p.ElicitationID == "" {
		return
	}
	s.urls.complete(p.ElicitationID)
	if err := s.p.Eliciter.Complete(s.p.Channel, p.ElicitationID); err != nil {
		s.log.Debug("elicitation complete not forwarded", "elicitationId", p.ElicitationID, "err", err)
	}
}

// upstreamElicit answers an upstream elicitation/create through the person.
func (s *session) upstreamElicit(m *jsonrpc.Request) {
	ctx, cancel := context.WithCancel(s.work)
	key := m.ID.Raw()
	s.mu.Lock()
	entry := &cancel
	s.elicits[key] = entry
	for _, c := range s.byHost {
		s.during[entry] = append(s.during[entry], c)
	}
	// A question the server sent during a call that the host cancelled
	// just before the proxy read it: the call has left byHost already.
	crossed := len(s.during[entry]) == 0 && s.lastCancelled != nil && time.Since(s.lastCancelledAt) < orphanGrace
	if crossed {
		s.during[entry] = []*call{s.lastCancelled}
	}
	s.mu.Unlock()
	if crossed {
		s.withdrawAfterGrace([]*context.CancelFunc{entry})
	}
	started := s.goroutine(func() {
		defer func() {
			cancel()
			s.mu.Lock()
			// An upstream that reused the id has replaced the entry.
			if s.elicits[key] == entry {
				delete(s.elicits, key)
			}
			delete(s.during, entry)
			delete(s.withdrawn, entry)
			s.mu.Unlock()
		}()
		res, err := s.elicit(ctx, m.Params)
		if err != nil {
			if ctx.Err() != nil {
				s.mu.Lock()
				byHost := s.withdrawn[entry]
				s.mu.Unlock()
				if byHost && s.ctx.Err() == nil {
					// Withdrawn because the host cancelled the call it
					// belonged to: the server still waits for an answer.
					s.writeUp(&jsonrpc.Response{ID: m.ID, Result: json.RawMessage(`{"action":"cancel"}`)})
				}
				// Otherwise the upstream cancelled it (MCP: a cancelled
				// request gets no response), or the session is ending.
				return
			}
			// elicit's errors are JSON-RPC errors already (rpcError):
			// -32602 with the schema's problems as data, not -32603.
			s.writeUp(&jsonrpc.Response{ID: m.ID, Error: asRPCError(err)})
			return
		}
		b, err := json.Marshal(res)
		if err != nil {
			s.writeUp(&jsonrpc.Response{ID: m.ID, Error: asRPCError(err)})
			return
		}
		s.writeUp(&jsonrpc.Response{ID: m.ID, Result: b})
	})
	if !started {
		cancel()
	}
}

// cancelElicit withdraws an upstream elicitation the upstream cancelled;
// it reports whether the cancellation was for one.
func (s *session) cancelElicit(params json.RawMessage) bool {
	key, ok := requestIDKey(params)
	if !ok {
		return false
	}
	s.mu.Lock()
	cancel, ok := s.elicits[key]
	s.mu.Unlock()
	if ok {
		(*cancel)()
	}
	return ok
}

// elicit puts one elicitation in front of the person. The params go to
// the hub as the upstream wrote them, so the form keeps its field order.
func (s *session) elicit(ctx context.Context, params json.RawMessage) (*wire.ElicitResult, error) {
	var p struct {
		Mode string `json:"mode"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "elicitation params are not a JSON object"}
	}
	if p.Mode != "" && p.Mode != wire.ModeForm && p.Mode != wire.ModeURL {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q was not declared by this client", p.Mode)}
	}
	var opts *hub.ElicitOptions
	if s.p.Timeout > 0 {
		opts = &hub.ElicitOptions{Timeout: s.p.Timeout}
	}
	warnIfNobodyWatches(s.log, s.p.Eliciter, s.p.Channel, s.requester())
	res, err := s.p.Eliciter.Elicit(ctx, s.p.Channel, s.requester(), params, opts)
	if err != nil {
		return nil, rpcError(err)
	}
	return res, nil
}
