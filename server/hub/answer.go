package hub

import (
	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// sessionHost is the engine's side of a Session: where its answers go
// and who is told when it leaves. The in-memory channel is one; a NATS
// engine (ARCHITECTURE section 7) would be another, keeping local widget
// sessions and sending answers to the node that holds the request.
type sessionHost interface {
	answer(s *Session, id string, res wire.ElicitResult) error
	leave(s *Session)
}

func (c *channel) leave(s *Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.end()
	delete(c.sessions, s)
	c.widgets.Store(int32(len(c.sessions)))
}

func (c *channel) answer(s *Session, id string, res wire.ElicitResult) error {
	switch res.Action {
	case wire.ActionAccept:
	case wire.ActionDecline, wire.ActionCancel:
		res.Content = nil // decline and cancel carry no content
	default:
		return &wire.Error{Code: wire.CodeInvalidParams, Message: `action must be "accept", "decline" or "cancel"`}
	}
	c.mu.Lock()
	if err := s.Err(); err != nil {
		c.mu.Unlock()
		return err
	}
	r := c.pending[id]
	if r == nil || !s.canShow(r) {
		defer c.mu.Unlock()
		if r == nil {
			if outcome, action, ok := c.recent.lookup(id, res); ok {
				s.push(settledFrame(id, outcome, nil, action))
				return nil
			}
		}
		return ErrUnknownRequest
	}
	form := r.parsed.form()
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
	if r.settled {
		c.mu.Unlock()
		return nil // the widget heard the outcome when it settled
	}
	if len(errs) > 0 {
		s.push(settledFrame(id, wire.OutcomeRejected, errs, ""))
		c.mu.Unlock()
		return nil
	}
	won := c.settleLocked(r, res, s, wire.OutcomeAnswered, wire.OutcomeAnsweredElsewhere)
	c.mu.Unlock()
	if won {
		r.finish()
	}
	return nil
}
