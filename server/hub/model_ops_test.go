package hub

// The model's operations: each does one thing to the hub and records in
// the model what must follow (see model_test.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

func (m *model) createChannel(name string) {
	_, err := m.h.CreateChannel(name)
	old := m.chans[name]
	var want error
	switch {
	case m.closed:
		want = ErrClosed
	case old != nil && old.live:
		want = ErrChannelExists
	}
	if !errors.Is(err, want) || (want == nil) != (err == nil) {
		m.Fatalf("CreateChannel(%q) = %v; want %v", name, err, want)
	}
	if err == nil {
		gen := 0
		if old != nil {
			gen = old.gen + 1
		}
		m.chans[name] = &mChan{name: name, gen: gen, live: true, recent: map[string]*mReq{}}
	}
}

func (m *model) deleteChannel(name string) {
	err := m.h.DeleteChannel(name)
	c := m.chans[name]
	if c == nil || !c.live {
		if !errors.Is(err, ErrNoChannel) {
			m.Fatalf("DeleteChannel(%q) of no channel = %v; want ErrNoChannel", name, err)
		}
		return
	}
	if err != nil {
		m.Fatalf("DeleteChannel(%q) = %v", name, err)
	}
	c.live = false
	if !m.closed { // a closed hub settled and detached everything already
		m.shutdown(c, ErrChannelDeleted)
	}
}

func (m *model) close() {
	m.h.Close()
	m.closed = true
	for _, c := range m.chans {
		if c.live {
			m.shutdown(c, ErrClosed)
		}
	}
	m.h.Close() // idempotent: no second round of notices
}

// shutdown is a channel deleted or the hub closed: every pending request
// settles as cancel, widgets hear "cancelled" and end with reason.
func (m *model) shutdown(c *mChan, reason error) {
	for _, r := range slices.Clone(c.pending) {
		m.settle(r, wire.OutcomeCancelled, "", &wire.ElicitResult{Action: wire.ActionCancel}, nil)
		m.tell(r, func(*mWidget) string { return "settled " + r.String() + " cancelled" })
	}
	for _, w := range m.widgets {
		if w.ch == c && w.state == "attached" {
			w.state, w.err = "ended", reason
		}
	}
}

// settle records how r ended in the model; widgets' notices are the
// caller's to expect.
func (m *model) settle(r *mReq, outcome, action string, res *wire.ElicitResult, err error) {
	if r.settled {
		m.Fatalf("model bug: %v settled twice", r)
	}
	r.settled = true
	r.outcome, r.action = outcome, action
	r.wantRes, r.wantErr = res, err
	r.ch.pending = slices.DeleteFunc(r.ch.pending, func(p *mReq) bool { return p == r })
	if r.id != "" {
		r.ch.recent[r.id] = r
	}
}

func (m *model) attach(name string, url bool) {
	caps := wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}}}
	if url {
		caps.Elicitation.URL = &struct{}{}
	}
	s, err := m.h.Attach(name, &AttachOptions{Capabilities: caps})
	c := m.chans[name]
	var want error
	switch {
	case c == nil || !c.live:
		want = ErrNoChannel
	case m.closed:
		want = ErrClosed
	}
	if want != nil || err != nil {
		if !errors.Is(err, want) || want == nil {
			m.Fatalf("Attach(%q) = %v; want %v", name, err, want)
		}
		return
	}
	w := &mWidget{n: len(m.widgets), ch: c, s: s, url: url, state: "attached"}
	m.widgets = append(m.widgets, w)
	m.Note(fmt.Sprintf(" = w%d", w.n))
	m.ordered = true
	n := 0
	for _, r := range c.pending {
		if !r.url || url {
			m.expect(w, "create "+r.String())
			n++
		}
	}
	if s.Backlog() != n {
		m.Fatalf("w%d's backlog is %d; want %d", w.n, s.Backlog(), n)
	}
}

func (m *model) leave(w *mWidget) {
	w.s.Close()
	w.state = "left"
}

// ask has a caller ask on name, in one of the ways a caller can.
func (m *model) ask(name string) {
	r := &mReq{q: len(m.reqs), url: m.rng.IntN(4) == 0, elicit: m.rng.IntN(2) == 0}
	params := modelForm(r.q)
	if r.url {
		params = modelURL(r.q)
	}
	bad := m.rng.IntN(20) == 0
	if bad {
		params = modelBadParams
	}
	var opts *ElicitOptions
	timeout := time.Hour
	if m.rng.IntN(2) == 0 {
		timeout = time.Duration(1+m.rng.IntN(6)) * time.Second
		opts = &ElicitOptions{Timeout: timeout}
	}
	ctx := context.Background()
	if m.rng.IntN(3) > 0 {
		ctx, r.cancel = context.WithCancel(ctx)
	}
	how := "Submit"
	if r.elicit {
		how = "Elicit"
	}
	desc := fmt.Sprintf("%v: %s on %s url=%v timeout=%v withdrawable=%v bad=%v", r, how, name, r.url, timeout, r.cancel != nil, bad)
	m.reqs = append(m.reqs, r)
	m.do(desc, func() {
		r.deadline = time.Now().Add(timeout)
		c := m.chans[name]
		switch {
		case c == nil || !c.live:
			r.refused, r.wantErr = true, ErrNoChannel
		case m.closed:
			r.refused, r.wantRes = true, &wire.ElicitResult{Action: wire.ActionCancel}
		case bad:
			r.refused, r.wantCode = true, wire.CodeInvalidParams
		case len(c.pending) >= modelMaxPending:
			r.refused, r.wantCode = true, wire.CodeTooManyPending
		}
		if r.refused {
			r.settled = true
		} else {
			r.ch = c
			c.pending = append(c.pending, r)
			m.tell(r, func(*mWidget) string { return "create " + r.String() })
		}
		if r.elicit {
			go func() {
				r.got(m.h.Elicit(ctx, name, wire.Implementation{Name: "model"}, json.RawMessage(params), opts))
			}()
		} else {
			m.h.Submit(ctx, name, wire.Implementation{Name: "model"}, json.RawMessage(params), opts, r.got)
		}
	})
}

func (m *model) withdraw(r *mReq) {
	r.cancel()
	if r.settled {
		return // too late: nothing changes
	}
	m.settle(r, wire.OutcomeCancelled, "", nil, context.Canceled)
	m.tell(r, func(*mWidget) string { return "settled " + r.String() + " cancelled" })
}

func (m *model) sleep(d time.Duration) {
	time.Sleep(d)
	now := time.Now()
	for _, r := range slices.Clone(m.reqs) {
		if r.ch != nil && !r.settled && !r.deadline.After(now) {
			m.settle(r, wire.OutcomeExpired, "", &wire.ElicitResult{Action: wire.ActionCancel}, nil)
			m.tell(r, func(*mWidget) string { return "settled " + r.String() + " expired" })
		}
	}
}

// answer has some widget answer some request, validly or not.
func (m *model) answer() {
	w := m.pickWidget(m.rng.IntN(10) > 0)
	if w == nil {
		return
	}
	// Mostly a request it was shown; sometimes any id known, or none.
	var id string
	var r *mReq
	switch k := m.rng.IntN(10); {
	case k < 7 && len(w.seen) > 0:
		r = w.seen[m.rng.IntN(len(w.seen))]
		id = r.id
	case k < 9 && len(m.byID) > 0:
		ids := make([]string, 0, len(m.byID))
		for id := range m.byID {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		id = ids[m.rng.IntN(len(ids))]
		r = m.byID[id]
	default:
		id = "nope"
	}
	var res wire.ElicitResult
	var kind string
	switch k := m.rng.IntN(12); {
	case k < 3:
		kind, res = "accept valid", wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": []string{"Ada", "Bob", "Cy"}[m.rng.IntN(3)]}}
	case k < 6:
		kind = "accept invalid"
		res = wire.ElicitResult{Action: wire.ActionAccept, Content: []map[string]any{{"name": "Z"}, {}, {"name": 7.0}, nil}[m.rng.IntN(4)]}
	case k < 8:
		kind, res = "decline", wire.ElicitResult{Action: wire.ActionDecline, Content: map[string]any{"name": "dropped"}}
	case k < 10:
		kind, res = "cancel", wire.ElicitResult{Action: wire.ActionCancel}
	case k < 11:
		kind, res = "bad action", wire.ElicitResult{Action: "maybe"}
	default:
		kind = "the winning answer again"
		if r != nil && r.answered {
			res = r.won
		} else {
			res = wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}
		}
	}
	if r != nil && r.url && res.Action == wire.ActionAccept {
		res.Content = nil // a URL request's accept carries none
	}
	target := id
	if r != nil {
		target = r.String()
	}
	m.do(fmt.Sprintf("w%d answers %s: %s %v", w.n, target, kind, res), func() { m.applyAnswer(w, id, r, res) })
}

func (m *model) applyAnswer(w *mWidget, id string, r *mReq, res wire.ElicitResult) {
	err := w.s.Answer(id, res)
	wantFail := func(want error) {
		if !errors.Is(err, want) {
			m.Fatalf("Answer = %v; want %v", err, want)
		}
	}
	if res.Action != wire.ActionAccept && res.Action != wire.ActionDecline && res.Action != wire.ActionCancel {
		var werr *wire.Error
		if !errors.As(err, &werr) || werr.Code != wire.CodeInvalidParams {
			m.Fatalf("Answer with a bad action = %v; want -32602", err)
		}
		return
	}
	switch w.state {
	case "left":
		wantFail(errSessionDetached)
		return
	case "ended":
		wantFail(w.err)
		return
	}
	if res.Action != wire.ActionAccept {
		res.Content = nil
	}
	pendingHere := r != nil && r.ch == w.ch && !r.settled
	switch {
	case pendingHere && r.url && !w.url:
		wantFail(ErrUnknownRequest) // a mode it did not declare is not its to answer
	case pendingHere:
		if err != nil {
			m.Fatalf("Answer = %v", err)
		}
		if !r.url && res.Action == wire.ActionAccept && !validName(res.Content) {
			m.expect(w, "settled "+r.String()+" rejected")
			return
		}
		if r.url && res.Action == wire.ActionAccept {
			res.Content = nil
		}
		r.answered, r.won = true, res
		m.settle(r, wire.OutcomeAnsweredElsewhere, res.Action, &wire.ElicitResult{Action: res.Action, Content: res.Content}, nil)
		m.tell(r, func(o *mWidget) string {
			if o == w {
				return "settled " + r.String() + " answered"
			}
			return "settled " + r.String() + " answered-elsewhere " + res.Action
		})
	case r != nil && r.ch == w.ch && r.ch.recent[id] == r:
		if err != nil {
			m.Fatalf("late Answer = %v; want nil and the outcome again", err)
		}
		if r.answered && digest(res) == digest(r.won) {
			m.expect(w, "settled "+r.String()+" answered")
		} else {
			m.expect(w, strings.TrimSpace("settled "+r.String()+" "+r.outcome+" "+r.action))
		}
	default:
		wantFail(ErrUnknownRequest)
	}
}

func validName(content map[string]any) bool {
	s, ok := content["name"].(string)
	return ok && len(s) >= 2
}
