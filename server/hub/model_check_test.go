package hub

// The model's checks: after each step, the hub against the model (see
// model_test.go).

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/formbridge/formbridge/app/wire"
)

// check compares the hub with the model after a step.
func (m *model) check() {
	m.t.Helper()
	m.checkFrames()
	for _, r := range m.reqs {
		r.mu.Lock()
		calls, res, err := r.calls, r.res, r.err
		r.mu.Unlock()
		switch {
		case !r.settled && calls != 0:
			m.Fatalf("%v is pending in the model, but its caller got %+v, %v", r, res, err)
		case !r.settled:
		case calls != 1:
			m.Fatalf("%v's caller was told %d times; want once", r, calls)
		case r.wantCode != 0:
			var werr *wire.Error
			if !errors.As(err, &werr) || werr.Code != r.wantCode || res != nil {
				m.Fatalf("%v's caller got %+v, %v; want error %d", r, res, err, r.wantCode)
			}
		case r.wantErr != nil:
			if !errors.Is(err, r.wantErr) || res != nil {
				m.Fatalf("%v's caller got %+v, %v; want %v", r, res, err, r.wantErr)
			}
		default:
			if err != nil || res == nil || res.Action != r.wantRes.Action || !reflect.DeepEqual(res.Content, r.wantRes.Content) {
				m.Fatalf("%v's caller got %+v, %v; want %+v", r, res, err, r.wantRes)
			}
		}
	}
	for name, c := range m.chans {
		want := ChannelStatus{}
		if c.live {
			want.Pending = len(c.pending)
			if !m.closed {
				for _, w := range m.widgets {
					if w.ch == c && w.state == "attached" {
						want.Widgets++
					}
				}
			}
		}
		got, err := m.h.Status(name)
		if (err == nil) != c.live || got != want {
			m.Fatalf("Status(%q) = %+v, %v; want %+v", name, got, err, want)
		}
		if got := m.h.Pending(name); got != want.Pending {
			m.Fatalf("Pending(%q) = %d; want %d", name, got, want.Pending)
		}
		if hc, _ := m.h.channel(name); hc != nil {
			m.checkInternals(hc, c)
		}
	}
	anyPending := false
	for _, r := range m.reqs {
		anyPending = anyPending || !r.settled
	}
	if held := m.h.held.Load(); (held != 0) != anyPending {
		m.Fatalf("held = %d bytes with pending requests %v", held, anyPending)
	}
}

// checkInternals: the channel's queue, map and expiry heap hold the
// model's pending requests, and nothing else.
func (m *model) checkInternals(hc *channel, c *mChan) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	var order []int
	for r := hc.head; r != nil; r = r.next {
		order = append(order, qOf(r))
	}
	var want []int
	for _, r := range c.pending {
		want = append(want, r.q)
	}
	if !slices.Equal(order, want) || len(hc.pending) != len(want) || len(hc.expiry) != len(want) {
		m.Fatalf("channel %s holds %v (map %d, heap %d); want %v", c.name, order, len(hc.pending), len(hc.expiry), want)
	}
	for i, r := range hc.expiry {
		if int(r.index) != i || r.settled {
			m.Fatalf("channel %s: heap entry %d has index %d, settled %v", c.name, i, r.index, r.settled)
		}
	}
}

// qOf reads the model's number of a request from its message.
func qOf(r *request) int {
	var p struct{ Message string }
	raw := r.frame
	if r.unsent != nil {
		raw = r.unsent.params
	} else {
		var msg wire.Message
		json.Unmarshal(raw, &msg)
		raw = msg.Params
	}
	json.Unmarshal(raw, &p)
	n, _ := strconv.Atoi(strings.TrimPrefix(p.Message, "q"))
	return n
}

// checkFrames takes every widget's frames and compares them with what
// the model expects this step.
func (m *model) checkFrames() {
	for _, w := range m.widgets {
		if w.state == "left" {
			continue
		}
		frames, err := w.s.Take(nil)
		var got []string
		for _, f := range frames {
			d := m.describe(w, f)
			got = append(got, d)
			kind := slices.Delete(strings.Fields(d), 1, 2) // by kind, not by request
			m.heard[strings.Join(kind, " ")]++
		}
		want := m.want[w]
		if !m.ordered {
			slices.Sort(got)
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			m.Fatalf("w%d (channel %s, url=%v) got frames %q; want %q", w.n, w.ch.name, w.url, got, want)
		}
		if (w.state == "ended") != (err != nil) || (err != nil && !errors.Is(err, w.err)) {
			m.Fatalf("w%d's session ended with %v; want %v", w.n, err, w.err)
		}
	}
}

// describe reads a frame as the model writes it, learning request ids
// from create frames.
func (m *model) describe(w *mWidget, f []byte) string {
	var msg wire.Message
	if err := json.Unmarshal(f, &msg); err != nil {
		m.Fatalf("w%d got a frame that is not JSON: %s", w.n, f)
	}
	switch msg.Method {
	case wire.MethodElicit:
		id, _ := wire.StringID(msg.ID)
		var p struct{ Message string }
		json.Unmarshal(msg.Params, &p)
		q, err := strconv.Atoi(strings.TrimPrefix(p.Message, "q"))
		if err != nil || q >= len(m.reqs) {
			m.Fatalf("w%d got a create frame for no request the model knows: %s", w.n, f)
		}
		r := m.reqs[q]
		switch {
		case r.id == "":
			if m.byID[id] != nil {
				m.Fatalf("%v and %v share id %q", r, m.byID[id], id)
			}
			r.id = id
			m.byID[id] = r
			if r.settled {
				r.ch.recent[id] = r
			}
		case r.id != id:
			m.Fatalf("%v came with id %q, earlier %q", r, id, r.id)
		}
		if !slices.Contains(w.seen, r) {
			w.seen = append(w.seen, r)
		}
		return "create " + r.String()
	case wire.MethodSettled:
		var p wire.SettledParams
		json.Unmarshal(msg.Params, &p)
		name := p.RequestID
		if r := m.byID[p.RequestID]; r != nil {
			name = r.String()
		}
		if (p.Outcome == wire.OutcomeRejected) != (len(p.Errors) > 0) {
			m.Fatalf("w%d: settled %s with errors %v", w.n, p.Outcome, p.Errors)
		}
		return strings.TrimSpace("settled " + name + " " + p.Outcome + " " + p.Action)
	}
	return "frame " + string(f)
}
