package hub

import (
	"sync"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// AttachOptions describe a widget joining a channel.
type AttachOptions struct {
	Client       wire.Implementation
	Capabilities wire.Capabilities

	// Notify is called when frames are queued for the widget or the
	// session ends. It is called with hub locks held: it must return at
	// once and must not call back into the hub (start or wake a writer).
	Notify func()
}

// Session is one widget attached to a channel. The hub queues encoded
// frames on it; the transport takes them with Take and writes them, so
// the hub never waits for a widget. When the queue passes the hub's
// MaxQueue the session ends with ErrSlowWidget.
type Session struct {
	c       *channel
	client  wire.Implementation
	url     bool // the widget renders URL mode
	notify  func()
	backlog int

	mu    sync.Mutex
	queue [][]byte
	err   error // why the session ended; nil while attached
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
	s := &Session{c: c, client: o.Client, notify: o.Notify}
	if e := o.Capabilities.Elicitation; e != nil && e.URL != nil {
		s.url = true
	}
	if s.notify == nil {
		s.notify = func() {}
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
			s.queue = append(s.queue, r.frame)
		}
	}
	s.backlog = len(s.queue)
	c.sessions[s] = struct{}{}
	return s, nil
}

// Channel is the name of the session's channel.
func (s *Session) Channel() string { return s.c.name }

// Backlog is how many pending requests were queued when the widget attached.
func (s *Session) Backlog() int { return s.backlog }

// canShow reports whether the widget declared the mode r needs. MCP
// forbids sending a mode the client did not declare.
func (s *Session) canShow(r *request) bool { return !r.url || s.url }

// push queues a frame. The caller holds s.c.mu.
func (s *Session) push(frame []byte) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= s.c.h.opts.MaxQueue {
		s.err, s.queue = ErrSlowWidget, nil
		delete(s.c.sessions, s)
		s.mu.Unlock()
		s.c.h.log.Warn("widget disconnected: send queue full", "channel", s.c.name, "client", s.client.Name)
		s.notify()
		return
	}
	s.queue = append(s.queue, frame)
	s.mu.Unlock()
	s.notify()
}

// detach ends the session with reason; frames already queued are kept so
// the widget still hears the last notices. The caller holds s.c.mu.
func (s *Session) detach(reason error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = reason
	}
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

// Queued reports whether frames wait, or the session ended, so a writer
// that went idle knows it missed a wake-up.
func (s *Session) Queued() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) > 0 || s.err != nil
}

// Close detaches the widget (its connection ended). Pending requests stay
// pending for the other widgets and for the next connection.
func (s *Session) Close() {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	s.mu.Lock()
	if s.err == nil {
		s.err = errSessionDetached
	}
	s.queue = nil
	s.mu.Unlock()
	delete(c.sessions, s)
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
	switch res.Action {
	case wire.ActionAccept:
	case wire.ActionDecline, wire.ActionCancel:
		res.Content = nil // decline and cancel carry no content
	default:
		return &wire.Error{Code: wire.CodeInvalidParams, Message: `action must be "accept", "decline" or "cancel"`}
	}
	c := s.c
	c.mu.Lock()
	if err := s.ended(); err != nil {
		c.mu.Unlock()
		return err
	}
	r := c.pending[id]
	if r == nil || !s.canShow(r) {
		defer c.mu.Unlock()
		if r == nil {
			if outcome, ok := c.recent.lookup(id, res); ok {
				s.push(settledFrame(id, outcome, nil))
				return nil
			}
		}
		return ErrUnknownRequest
	}
	form := r.form
	c.mu.Unlock()

	// Validation runs outside the lock: a large form must not hold up
	// the channel.
	var errs []elicit.FieldError
	if res.Action == wire.ActionAccept {
		if form == nil {
			res.Content = nil // URL mode: accept means the person agreed to open the link
		} else {
			content := res.Content
			if content == nil {
				content = map[string]any{}
			}
			errs = form.Validate(content)
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if r.settled {
		return nil // the widget heard the outcome when it settled
	}
	if len(errs) > 0 {
		s.push(settledFrame(id, wire.OutcomeRejected, errs))
		return nil
	}
	c.settleLocked(r, res, s, wire.OutcomeAnswered, wire.OutcomeAnsweredElsewhere)
	return nil
}

func (s *Session) ended() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
