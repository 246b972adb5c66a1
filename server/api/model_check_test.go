package api_test

// The API model's checks: after each step, what callers and widgets got
// against the model (see model_test.go).

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/formbridge/formbridge/app/wire"
)

// check compares the calls, the widgets' frames and the channels'
// pending counts with the model after a step.
func (m *apiModel) check() {
	m.t.Helper()
	m.checkFrames()
	for _, c := range m.calls {
		m.checkCall(c)
	}
	for _, ch := range apiModelChannels {
		st, err := m.h.Status(ch)
		if err != nil || st.Pending != m.pending(ch) {
			m.Fatalf("channel %s: %d pending, %v; want %d", ch, st.Pending, err, m.pending(ch))
		}
	}
}

func (m *apiModel) checkCall(c *mCall) {
	m.t.Helper()
	if c.checked {
		return
	}
	select {
	case <-c.done:
	default:
		if c.answered {
			m.Fatalf("%v has not returned; want %d %s%s", c, c.status, c.code, c.body)
		}
		return
	}
	c.checked = true
	c.rec.mu.Lock()
	status, body := c.rec.status, c.rec.body.String()
	c.rec.mu.Unlock()
	replayed := c.rec.header.Get("Idempotent-Replayed") == "true"
	switch {
	case !c.answered:
		m.Fatalf("%v returned %d %s; the model says it still waits", c, status, body)
	case c.left:
		if status != 0 || body != "" {
			m.Fatalf("%v's caller left, yet it was written %d %s", c, status, body)
		}
		m.heard["left"]++
	case status != c.status || replayed != c.replayed:
		m.Fatalf("%v got %d %s (replayed %v); want %d %s%s (replayed %v)", c, status, body, replayed, c.status, c.code, c.body, c.replayed)
	case c.code != "":
		var e struct {
			Error struct{ Code, Message string }
		}
		if json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != c.code || e.Error.Message == "" {
			m.Fatalf("%v got %d %s; want error %s", c, status, body, c.code)
		}
		m.heard[c.code]++
	case body != c.body:
		m.Fatalf("%v got %d %s; want %s", c, status, body, c.body)
	default:
		kind := strings.SplitN(strings.TrimSpace(body), ",", 2)[0]
		if body == "" {
			kind = "204"
		}
		if replayed {
			kind += " replayed"
		}
		m.heard[kind]++
	}
}

// checkFrames compares what each widget got with the model, in any
// order within a step, learning request ids from create frames.
func (m *apiModel) checkFrames() {
	m.t.Helper()
	for _, ch := range apiModelChannels {
		frames, err := m.widgets[ch].Take(nil)
		if err != nil {
			m.Fatalf("the widget of %s ended: %v", ch, err)
		}
		var got []string
		for _, f := range frames {
			got = append(got, m.describe(ch, f))
		}
		want := m.want[ch]
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			m.Fatalf("the widget of %s got frames %q; want %q", ch, got, want)
		}
	}
}

// describe reads a frame as the model writes it.
func (m *apiModel) describe(ch string, f []byte) string {
	var msg wire.Message
	if err := json.Unmarshal(f, &msg); err != nil {
		m.Fatalf("the widget of %s got a frame that is not JSON: %s", ch, f)
	}
	switch msg.Method {
	case wire.MethodElicit:
		id, _ := wire.StringID(msg.ID)
		// One question is asked a step at most: this is it.
		q := m.fresh
		if q == nil || q.id != "" || q.ch != ch {
			m.Fatalf("the widget of %s got a create frame the model did not ask: %s", ch, f)
		}
		if m.byID[id] != nil {
			m.Fatalf("%v and %v share id %q", q, m.byID[id], id)
		}
		q.id = id
		m.byID[id] = q
		return "create " + q.String()
	case wire.MethodSettled:
		var p wire.SettledParams
		json.Unmarshal(msg.Params, &p)
		name := p.RequestID
		if q := m.byID[p.RequestID]; q != nil {
			name = q.String()
		}
		return strings.TrimSpace("settled " + name + " " + p.Outcome + " " + p.Action)
	}
	return "frame " + string(f)
}
