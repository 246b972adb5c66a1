package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxInputRounds bounds the input_required rounds of one host request
// (the go-sdk client allows the same number).
const maxInputRounds = 10

// maxInputRequests bounds the questions one round may put in front of
// the person at once (each waits on its own goroutine); a server that
// needs more is asking too much of one person anyway.
const maxInputRequests = 32

// errNoReply ends a call whose host no longer wants an answer (it
// cancelled the request, or the session ended).
var errNoReply = errors.New("no reply wanted")

// call is one host request in flight upstream. Its upstream id changes
// with every retry round; the host only ever sees its own id.
type call struct {
	hostID        jsonrpc.ID
	method        string
	ctx           context.Context // ends when the host cancels, the upstream is gone, or the session ends
	cancel        context.CancelFunc
	upID          any                    // current round's upstream id; guarded by session.mu
	hostCancelled bool                   // the host sent notifications/cancelled for it; guarded by session.mu
	resp          chan *jsonrpc.Response // the current round's answer
}

// hostCall sends a host request upstream at once (so upstream sees the
// host's order) and waits for its answer on a goroutine.
func (s *session) hostCall(req *jsonrpc.Request) {
	params := req.Params
	if !s.p.PassThrough {
		params = declareElicitation(req.Method, params)
	}
	s.noteProtocol(params)
	ctx, cancel := context.WithCancel(s.work)
	c := &call{hostID: req.ID, method: req.Method, ctx: ctx, cancel: cancel, resp: make(chan *jsonrpc.Response, 1)}
	s.mu.Lock()
	s.byHost[req.ID.Raw()] = c
	s.mu.Unlock()
	// Reserve the call's place on the wait group before it goes upstream:
	// an upstream that dies on reading it ends the session, which must
	// wait for this call's error answer before it closes the host.
	if !s.reserve() {
		s.endCall(c)
		s.replyError(c, s.goneError())
		return
	}
	sendErr := s.send(c, params)
	go func() {
		defer s.wg.Done()
		s.finish(c, params, sendErr)
	}()
}

// finish waits for the upstream's answer, resolves input requests and
// URL elicitations through the person, and answers the host.
func (s *session) finish(c *call, params json.RawMessage, sendErr error) {
	defer s.endCall(c)
	resp, err := (*jsonrpc.Response)(nil), sendErr
	if err == nil {
		resp, err = s.await(c)
	}
	if err == nil && !s.p.PassThrough {
		resp, err = s.resolve(c, params, resp)
	}
	switch {
	case errors.Is(err, errNoReply):
		return
	case err != nil:
		s.replyError(c, err)
		return
	}
	s.noteServer(c.method, resp)
	s.writeHost(&jsonrpc.Response{ID: c.hostID, Result: resp.Result, Error: resp.Error})
}

func (s *session) replyError(c *call, err error) {
	s.writeHost(&jsonrpc.Response{ID: c.hostID, Error: asRPCError(err)})
}

func asRPCError(err error) error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		if rpcErr.Code == 0 {
			// JSON-RPC has no code 0; the go-sdk makes such an error up
			// when an HTTP upstream drops a call's stream.
			return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error(), Data: rpcErr.Data}
		}
		if error(rpcErr) == err {
			return rpcErr
		}
		// Keep what was wrapped around it: the go-sdk's "rejected by
		// transport" alone does not say the upstream refused the
		// connection, nor which.
		return &jsonrpc.Error{Code: rpcErr.Code, Message: err.Error(), Data: rpcErr.Data}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

func (s *session) endCall(c *call) {
	c.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	// A host that reuses an id while its first call is in flight has
	// replaced the entry: leave the newer call's entry alone.
	if key := c.hostID.Raw(); s.byHost[key] == c {
		delete(s.byHost, key)
	}
	if s.calls[c.upID] == c {
		delete(s.calls, c.upID)
	}
}

// send starts a round of c upstream under a fresh id.
func (s *session) send(c *call, params json.RawMessage) error {
	s.mu.Lock()
	if s.upErr != nil {
		s.mu.Unlock()
		return s.goneError()
	}
	if s.calls[c.upID] == c {
		delete(s.calls, c.upID)
	}
	s.nextID++
	id, _ := jsonrpc.MakeID(float64(s.nextID))
	c.upID = id.Raw()
	s.calls[c.upID] = c
	s.mu.Unlock()
	if err := s.up.Write(s.ctx, &jsonrpc.Request{ID: id, Method: c.method, Params: params}); err != nil {
		return fmt.Errorf("failed to send %s upstream: %w", c.method, err)
	}
	return nil
}

// await returns the answer to c's current round.
func (s *session) await(c *call) (*jsonrpc.Response, error) {
	select {
	case r := <-c.resp:
		return r, nil
	case <-c.ctx.Done():
		s.mu.Lock()
		gone := s.upErr != nil
		s.mu.Unlock()
		if gone {
			return nil, s.goneError()
		}
		return nil, errNoReply
	}
}

func (s *session) roundTrip(c *call, params json.RawMessage) (*jsonrpc.Response, error) {
	if err := s.send(c, params); err != nil {
		return nil, err
	}
	return s.await(c)
}

func (s *session) goneError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.upErr
	if err == nil {
		err = ErrUpstreamClosed
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// upstreamResponse hands an upstream answer to the call waiting for it.
func (s *session) upstreamResponse(m *jsonrpc.Response) {
	s.mu.Lock()
	c := s.calls[m.ID.Raw()]
	delete(s.calls, m.ID.Raw())
	s.mu.Unlock()
	if c == nil {
		s.log.Debug("dropping an upstream answer nobody waits for", "id", m.ID.Raw())
		return
	}
	select {
	case c.resp <- m:
	default: // a duplicate answer for the same round
	}
}

// upstreamGone fails every call in flight: their goroutines answer the
// host with the error, and their elicitations are withdrawn.
func (s *session) upstreamGone(err error) {
	s.mu.Lock()
	s.upErr = err
	s.mu.Unlock()
	s.cancelWork()
}

// hostNotification relays a host notification. A cancellation names the
// host's id: it is rewritten to the current round's upstream id, and the
// call's pending elicitations are withdrawn.
func (s *session) hostNotification(m *jsonrpc.Request) {
	if m.Method == methodCancelled {
		if c, upID, ok := s.callByHostParams(m.Params); ok {
			c.cancel()
			if p, err := setField(m.Params, "requestId", upID); err == nil {
				m = &jsonrpc.Request{Method: m.Method, Params: p}
			}
			// The upstream hears of the cancel before the cancel answer
			// to any question of the call's that is withdrawn.
			s.writeUp(m)
			s.withdrawOrphanedElicits(c)
			return
		}
	}
	s.writeUp(m)
}

func (s *session) callByHostParams(params json.RawMessage) (*call, any, bool) {
	key, ok := requestIDKey(params)
	if !ok {
		return nil, nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.byHost[key]
	if c == nil {
		return nil, nil, false
	}
	return c, c.upID, true
}

// requestIDKey reads params.requestId as the key jsonrpc.ID.Raw() gives.
func requestIDKey(params json.RawMessage) (any, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return nil, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return nil, false
	}
	return id.Raw(), true
}

// setField returns the JSON object obj with key set to v.
func setField(obj json.RawMessage, key string, v any) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(obj)) > 0 && string(bytes.TrimSpace(obj)) != "null" {
		if err := json.Unmarshal(obj, &m); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m[key] = b
	return json.Marshal(m)
}

// withdrawOrphanedElicits withdraws the upstream's elicitations that came
// while c was in flight, once every host call then in flight has been
// cancelled by the host: no one is left to use the person's answer. A
// server that cancels its own question gets orphanGrace to do so (and
// then gets no answer, as MCP asks); the others are answered cancel.
func (s *session) withdrawOrphanedElicits(c *call) {
	s.mu.Lock()
	c.hostCancelled = true
	s.lastCancelled, s.lastCancelledAt = c, time.Now()
	var orphans []*context.CancelFunc
	for entry, calls := range s.during {
		all := len(calls) > 0
		for _, d := range calls {
			all = all && d.hostCancelled
		}
		if all {
			orphans = append(orphans, entry)
		}
	}
	s.mu.Unlock()
	s.withdrawAfterGrace(orphans)
}

// withdrawAfterGrace withdraws the elicitations of orphans still waiting
// for the person after orphanGrace, to be answered cancel.
func (s *session) withdrawAfterGrace(orphans []*context.CancelFunc) {
	if len(orphans) == 0 {
		return
	}
	time.AfterFunc(orphanGrace, func() {
		s.mu.Lock()
		var cancels []context.CancelFunc
		for _, entry := range orphans {
			// Still waiting for the person (its goroutine removes it).
			if _, ok := s.during[entry]; ok && !s.withdrawn[entry] {
				s.withdrawn[entry] = true
				cancels = append(cancels, *entry)
			}
		}
		s.mu.Unlock()
		for _, cancel := range cancels {
			cancel()
		}
	})
}

// orphanGrace is how long a question whose call the host cancelled stays
// in front of the person, for the server to cancel it itself.
const orphanGrace = 500 * time.Millisecond
