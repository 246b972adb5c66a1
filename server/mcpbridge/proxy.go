package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Proxy relays MCP sessions between a host and an upstream server at the
// JSON-RPC level, so every method passes through without the proxy
// knowing it. What it changes:
//   - it declares elicitation {form:{}, url:{}} upstream on the host's
//     behalf (in initialize, and in each request's _meta at 2026-07-28),
//     keeping the rest of the host's capabilities;
//   - it answers the upstream's elicitation/create through the Eliciter,
//     with the upstream's name and version as the requester;
//   - it answers 2026-07-28 input_required results through the Eliciter
//     and retries with inputResponses and the echoed requestState, so the
//     host only sees the final result;
//   - on -32042 it shows each listed URL request, waits for them to
//     complete, and retries the original request once.
//
// With PassThrough set it changes nothing and the host gets the
// elicitations itself. One Proxy may Serve many sessions at once (HTTPHost
// does); do not change its fields while it serves.
type Proxy struct {
	Eliciter Eliciter
	Channel  string
	// PassThrough hands elicitations to the host instead of formbridge.
	PassThrough bool
	// Timeout overrides the hub's expiry per elicitation when > 0. It also
	// bounds the wait for URL-mode completion after -32042 (default 10 min).
	Timeout time.Duration
	Logger  *slog.Logger // nil = discard
}

// ErrUpstreamClosed is returned by Serve when the upstream server ended
// the session (it exited, crashed or hung up) or sent what cannot be
// read; the error it wraps says which.
var ErrUpstreamClosed = errors.New("the connection to the upstream MCP server ended")

// Serve relays one session until the host or the upstream ends it, and
// closes both connections. It returns nil when the host hung up, an error
// wrapping ErrUpstreamClosed when the upstream did (in-flight host
// requests have then been answered with errors and pending elicitations
// withdrawn), or ctx.Err().
func (p *Proxy) Serve(ctx context.Context, host, upstream mcp.Connection) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work, cancelWork := context.WithCancel(ctx)
	defer cancelWork()
	s := &session{
		p:          p,
		host:       host,
		up:         upstream,
		ctx:        ctx,
		work:       work,
		cancelWork: cancelWork,
		log:        p.logger(),
		calls:      map[any]*call{},
		byHost:     map[any]*call{},
		elicits:    map[any]*context.CancelFunc{},
		asked:      map[any]bool{},
		during:     map[*context.CancelFunc][]*call{},
		withdrawn:  map[*context.CancelFunc]bool{},
	}
	hostDone := make(chan error, 1)
	upDone := make(chan error, 1)
	go func() { hostDone <- s.readHost() }()
	go func() { upDone <- s.readUpstream() }()

	var err error
	select {
	case herr := <-hostDone:
		// The host is gone: nobody is left to answer, so withdraw
		// everything and let the upstream go.
		if herr != nil && !isEOF(herr) {
			s.log.Warn("host connection failed", "err", herr)
		}
		s.closeCalls()
		cancel()
		upstream.Close()
		<-upDone
		s.wg.Wait()
		host.Close()
	case uerr := <-upDone:
		err = fmt.Errorf("%w: %w", ErrUpstreamClosed, uerr)
		switch {
		case ctx.Err() != nil:
			err = ctx.Err()
		case !isEOF(uerr):
			// Not gone: it sent what cannot be read (a server on stdio
			// that prints a banner to stdout, say).
			s.log.Error("could not read the upstream MCP server; failing its in-flight requests", "err", uerr)
		default:
			s.log.Error("upstream MCP server is gone; failing its in-flight requests", "err", uerr)
		}
		s.upstreamGone(err)
		s.closeCalls()
		s.wg.Wait() // every in-flight call has answered the host
		cancel()
		upstream.Close()
		host.Close()
		<-hostDone
	case <-ctx.Done():
		err = ctx.Err()
		s.closeCalls()
		// The host first: closing an HTTP upstream may wait seconds for
		// its DELETE, and the host's open streams would hold the bridge's
		// shutdown as long.
		host.Close()
		upstream.Close()
		<-upDone
		<-hostDone
		s.wg.Wait()
	}
	return err
}

func (p *Proxy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed)
}

// session is the state of one relayed session.
type session struct {
	p        *Proxy
	host, up mcp.Connection
	ctx      context.Context // ends with the session; reads and writes use it
	log      *slog.Logger
	wg       sync.WaitGroup // call and elicitation goroutines

	// work is the parent of every call and elicitation: it ends when the
	// upstream is gone (so the person's pending questions are withdrawn
	// while the host still gets its error answers) or the session ends.
	work       context.Context
	cancelWork context.CancelFunc

	mu       sync.Mutex
	nextID   int64
	calls    map[any]*call               // by the upstream id of its current round
	byHost   map[any]*call               // by the host's id
	elicits  map[any]*context.CancelFunc // upstream elicitation/create being answered, by its id (a pointer, so cleanup can tell its own entry)
	asked    map[any]bool                // ids of the upstream's requests relayed to the host and not yet answered
	hostFull bool                        // asked is full: requests are refused (logged once per spell)
	urls     completions                 // URL elicitations awaiting completion
	// The host calls in flight when each upstream elicitation came, by
	// its elicits entry: a server that does not cancel its question when
	// the host cancels the call (the TypeScript SDK's sendRequest) would
	// otherwise leave it in front of the person. withdrawn marks those
	// withdrawn so, which the upstream is told as cancel.
	during    map[*context.CancelFunc][]*call
	withdrawn map[*context.CancelFunc]bool
	// The call the host cancelled last, and when: a question read just
	// after belongs to it.
	lastCancelled   *call
	lastCancelledAt time.Time
	server          wire.Implementation // who the upstream says it is
	protocol        string              // negotiated protocol version
	upErr           error               // set when the upstream is gone
	closing         bool                // no new goroutines once set (wg.Wait is near)
}

// goroutine runs f on the session's wait group, unless the session is
// closing; it reports whether f was started.
func (s *session) goroutine(f func()) bool {
	if !s.reserve() {
		return false
	}
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// reserve adds one to the session's wait group unless the session is
// closing; the caller must call wg.Done once it reserved.
func (s *session) reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *session) closeCalls() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
}

func (s *session) requester() wire.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.server.Name == "" {
		return wire.Implementation{Name: unnamedServer}
	}
	return s.server
}

// readHost relays what the host sends until its connection ends.
func (s *session) readHost() error {
	for {
		msg, err := s.host.Read(s.ctx)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.IsCall() {
				s.hostCall(m)
				continue
			}
			s.hostNotification(m)
		case *jsonrpc.Response:
			// An answer to a request the upstream sent the host; ids in
			// that direction are not rewritten. Only those are relayed: a
			// response under the id of an elicitation the proxy put to the
			// person would answer it for them.
			if !s.answered(m.ID) {
				s.log.Debug("dropped a host response to nothing the upstream asked it", "id", m.ID.Raw())
				continue
			}
			s.writeUp(m)
		}
	}
}

// readUpstream relays what the upstream sends until its connection ends.
func (s *session) readUpstream() error {
	for {
		msg, err := s.up.Read(s.ctx)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if s.p.PassThrough {
				s.relayToHost(m)
				continue
			}
			switch {
			case m.IsCall() && m.Method == methodElicit:
				s.upstreamElicit(m)
			case m.Method == methodCancelled && s.cancelElicit(m.Params):
			case m.Method == methodElicitComplete:
				s.urlCompleted(m.Params)
			default:
				s.relayToHost(m)
			}
		case *jsonrpc.Response:
			s.upstreamResponse(m)
		}
	}
}

// relayToHost passes on a request or notification of the upstream's,
// noting the id of a request so that the host's answer to it, and only
// that, goes back (answered).
func (s *session) relayToHost(m *jsonrpc.Request) {
	s.mu.Lock()
	switch {
	case m.IsCall() && len(s.asked) >= maxHostRequests:
		// A host that answers nothing must not make the proxy remember
		// every request an upstream puts to it.
		first := !s.hostFull
		s.hostFull = true
		s.mu.Unlock()
		if first { // once per spell, not once per request of a flood
			s.log.Warn("refusing the upstream's requests to the host: too many are waiting for its answers", "method", m.Method, "limit", maxHostRequests)
		}
		s.writeUp(&jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("the host has not answered %d earlier requests; try again once it has", maxHostRequests)}})
		return
	case m.IsCall():
		s.asked[m.ID.Raw()] = true
	case m.Method == methodCancelled:
		// The upstream no longer wants the answer.
		if key, ok := requestIDKey(m.Params); ok && s.asked[key] {
			delete(s.asked, key)
			s.hostFull = false
		}
	}
	s.mu.Unlock()
	s.writeHost(m)
}

// maxHostRequests bounds the upstream's requests waiting on the host
// (sampling, roots, pings): far more than any real session has open.
const maxHostRequests = 1024

// answered reports whether id names a request the upstream sent the host
// and the host has not answered yet; it is answered from now on.
func (s *session) answered(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := id.Raw()
	if !s.asked[key] {
		return false
	}
	delete(s.asked, key)
	s.hostFull = false
	return true
}

func (s *session) writeHost(m jsonrpc.Message) {
	if err := s.host.Write(s.ctx, m); err != nil && s.ctx.Err() == nil {
		s.log.Warn("could not write to the host", "err", err)
	}
}

func (s *session) writeUp(m jsonrpc.Message) {
	if err := s.up.Write(s.ctx, m); err != nil && s.ctx.Err() == nil {
		s.log.Warn("could not write to the upstream server", "err", err)
	}
}

// MCP method names the proxy looks at.
const (
	methodInitialize     = "initialize"
	methodDiscover       = "server/discover"
	methodElicit         = "elicitation/create"
	methodCancelled      = "notifications/cancelled"
	methodElicitComplete = "notifications/elicitation/complete"
)
