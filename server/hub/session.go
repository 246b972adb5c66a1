package hub

import (
	"crypto/subtle"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/formbridge/formbridge/app/wire"
)

// AttachOptions describe a widget joining a channel.
type AttachOptions struct {
	Client       wire.Implementation
	Capabilities wire.Capabilities

	// Token, when set, is the token Authenticate took for this channel:
	// Attach refuses it with ErrChannelDeleted if the channel of that
	// name is no longer the one it opened (deleted and made again between
	// the two calls).
	Token string

	// Notify is called when frames are queued for the widget or the
	// session ends. It is called with hub locks held: it must return at
	// once and must not call back into the hub (start or wake a writer).
	Notify func()
}

// Session is one widget attached to a channel. The hub queues encoded
// frames on it; the transport takes them with Take and writes them, so
// the hub never waits for a widget. When the queue passes the hub's
// MaxQueue the session ends with ErrSlowWidget. Its methods are safe for
// concurrent use (the gateway answers from its reader goroutine while
// its writer takes frames).
type Session struct {
	host     sessionHost
	channel  string
	client   wire.Implementation
	url      bool // the widget renders URL mode
	notify   func()
	backlog  int
	maxQueue int
	log      *slog.Logger

	mu    sync.Mutex
	queue [][]byte
	err   error // why the session ended; nil while attached

	// ended mirrors err for Err, which the hub and the transport call
	// on every answer and busy wake-up: they need not contend for mu.
	ended atomic.Pointer[error]
}

// setErr ends the session with err unless it ended already. The caller
// holds s.mu.
func (s *Session) setErr(err error) {
	if s.err == nil {
		s.err = err
		s.ended.Store(&err)
	}
}

// Attach joins a widget to a channel. Every pending request the widget
// can show is queued at once, in arrival order; Backlog says how many.
// Notify is not called for this backlog: the transport takes it when it
// is ready (after its hello response).
func (h *Hub) Attach(channel string, opts *AttachOptions) (*Session, error) {
	c, err := h.channel(channel)
	if err != nil {
		return nil, err
	}
	var o AttachOptions
	if opts != nil {
		o = *opts
	}
	s := &Session{host: c, channel: c.name, client: o.Client, notify: o.Notify, maxQueue: h.opts.MaxQueue, log: h.log}
	if e := o.Capabilities.Elicitation; e != nil && e.URL != nil {
		s.url = true
	}
	if s.notify == nil {
		s.notify = func() {}
	}
	if o.Token != "" && subtle.ConstantTimeCompare([]byte(c.token), []byte(o.Token)) != 1 {
		return nil, ErrChannelDeleted
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone != nil {
		return nil, c.gone
	}
	if len(c.sessions) >= c.h.opts.MaxWidgets {
		return nil, ErrTooManyWidgets
	}
	for r := c.head; r != nil; r = r.next {
		if s.canShow(r) {
			s.queue = append(s.queue, r.encoded())
		}
	}
	s.backlog = len(s.queue)
	c.sessions[s] = struct{}{}
	c.widgets.Store(int32(len(c.sessions)))
	return s, nil
}

// ChannelStatus is how a channel is doing: whether anyone could answer
// now, and how much waits.
type ChannelStatus struct {
	Widgets int // widget connections attached now
	Pending int // requests waiting for an answer
}

// Status reports a channel's widgets and pending requests; ErrNoChannel
// for an unknown one.
func (h *Hub) Status(channel string) (ChannelStatus, error) {
	c, err := h.channel(channel)
	if err != nil {
		return ChannelStatus{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return ChannelStatus{Widgets: len(c.sessions), Pending: len(c.pending)}, nil
}

// Widgets counts the widgets attached to a channel (0 for an unknown one).
func (h *Hub) Widgets(channel string) int {
	st, _ := h.Status(channel)
	return st.Widgets
}

// Pending counts the requests waiting on a channel (0 for an unknown one).
func (h *Hub) Pending(channel string) int {
	st, _ := h.Status(channel)
	return st.Pending
}

// Channel is the name of the session's channel.
func (s *Session) Channel() string { return s.channel }

// Backlog is how many pending requests were queued when the widget attached.
func (s *Session) Backlog() int { return s.backlog }

// canShow reports whether the widget declared the mode r needs. MCP
// forbids sending a mode the client did not declare.
func (s *Session) canShow(r *request) bool { return !r.url || s.url }

// push queues a frame. The caller holds the host's lock. A session whose
// queue overflows ends at once; it leaves its host when the transport
// closes it.
func (s *Session) push(frame []byte) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= s.maxQueue {
		s.setErr(ErrSlowWidget)
		s.queue = nil
		s.mu.Unlock()
		s.log.Warn("widget cut off: its send queue is full", "channel", s.channel, "client", s.client.Name)
		s.notify()
		return
	}
	s.queue = append(s.queue, frame)
	s.mu.Unlock()
	s.notify()
}

// detach ends the session with reason; frames already queued are kept so
// the widget still hears the last notices. The caller holds the host's lock.
func (s *Session) detach(reason error) {
	s.mu.Lock()
	s.setErr(reason)
	s.mu.Unlock()
	s.notify()
}

// Take appends the queued frames to dst and empties the queue. A non-nil
// error says the session has ended and why: write the frames returned,
// then close the connection. The frames are shared between widgets and
// must not be modified.
func (s *Session) Take(dst [][]byte) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = append(dst, s.queue...)
	clear(s.queue)
	s.queue = s.queue[:0]
	if cap(s.queue) > 64 {
		s.queue = nil // let a burst's backing array go
	}
	return dst, s.err
}

// Err reports why the session ended, nil while it is attached.
func (s *Session) Err() error {
	if p := s.ended.Load(); p != nil {
		return *p
	}
	return nil
}

// Queued reports whether frames wait, or the session ended, so a writer
// that went idle knows it missed a wake-up.
func (s *Session) Queued() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) > 0 || s.err != nil
}

// Close detaches the widget (its connection ended). Pending requests stay
// pending for the other widgets and for the next connection.
func (s *Session) Close() { s.host.leave(s) }

// end marks the session over and drops its queue.
func (s *Session) end() {
	s.mu.Lock()
	s.setErr(errSessionDetached)
	s.queue = nil
	s.mu.Unlock()
}

// Answer takes the widget's response to elicitation/create id. A valid
// answer settles the request (the widget hears "answered", the others
// "answered-elsewhere"); content that fails validation is never
// forwarded: the widget hears "rejected" with the field errors and the
// request stays pending. An answer to a request that settled recently
// gets that request's outcome again, so a retried answer settles once.
// It fails with ErrUnknownRequest for an id the channel does not know,
// and with a *wire.Error for an action that is not accept, decline or
// cancel.
func (s *Session) Answer(id string, res wire.ElicitResult) error {
	return s.host.answer(s, id, res)
}
