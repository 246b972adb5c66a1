package api_test

// The API model's operations: each makes one HTTP call, or acts as a
// widget or as time, and records in the model what must follow (see
// model_test.go).

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// start serves one call on its own goroutine, as net/http would, with a
// context its caller ends by leaving.
func (m *apiModel) start(what, method, ch, key, body string) *mCall {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, method, "/api/v1/channels/"+ch+"/elicitations", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+apiKey)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	c := &mCall{n: len(m.calls), what: what, cancel: cancel, rec: &recorder{header: http.Header{}}, done: make(chan struct{})}
	m.calls = append(m.calls, c)
	go func() {
		defer close(c.done)
		defer cancel() // net/http ends a request's context when its handler returns
		m.handler.ServeHTTP(c.rec, req)
	}()
	return c
}

// resolve says c's handler has returned with an error (code) or a 200
// with res, or a 204 when status says so.
func (c *mCall) resolve(status int, code string, res *wire.ElicitResult, replayed bool) {
	c.answered, c.status, c.code, c.replayed = true, status, code, replayed
	if res != nil {
		b, _ := json.Marshal(res)
		c.body = string(b) + "\n"
	}
}

// forget drops the outcomes kept past their retention, as the bridge
// must by now.
func (m *apiModel) forget() {
	now := time.Now()
	for id, q := range m.keyed {
		if q.settled && !now.Before(q.expires) {
			delete(m.keyed, id)
		}
	}
}

func (m *apiModel) pending(ch string) int {
	n := 0
	for _, q := range m.qs {
		if q.ch == ch && !q.settled {
			n++
		}
	}
	return n
}

func (m *apiModel) post(ch, key string, v int) {
	b := apiModelBodies[v]
	c := m.start("POST "+ch+" "+key, "POST", ch, key, b.body)
	m.forget()
	if key != "" {
		if q := m.keyed[[2]string{ch, key}]; q != nil {
			switch {
			case q.class != b.class:
				c.resolve(http.StatusUnprocessableEntity, "key_reused", nil, false)
			case q.settled:
				res := q.res
				c.resolve(http.StatusOK, "", &res, true)
			default: // waits for the same question
				c.q, c.replayed = q, true
			}
			return
		}
	}
	if m.pending(ch) >= apiModelMaxPending {
		// Refused: nothing is kept under the key.
		c.resolve(http.StatusTooManyRequests, "too_many_pending", nil, false)
		return
	}
	q := &mQuestion{n: len(m.qs), ch: ch, key: key, class: b.class, deadline: time.Now().Add(b.timeout)}
	m.qs = append(m.qs, q)
	m.fresh = q
	m.want[ch] = append(m.want[ch], "create "+q.String())
	if key != "" {
		m.keyed[[2]string{ch, key}] = q
	}
	c.q = q
}

// settle is q settling at at with res: its widget hears why, and every
// call still waiting for it gets res.
func (m *apiModel) settle(q *mQuestion, res wire.ElicitResult, outcome string, at time.Time) {
	q.settled, q.res = true, res
	q.expires = at.Add(apiModelRetention)
	m.want[q.ch] = append(m.want[q.ch], "settled "+q.String()+" "+outcome)
	for _, c := range m.calls {
		if c.q == q && !c.answered {
			c.resolve(http.StatusOK, "", &res, c.replayed)
		}
	}
}

func (m *apiModel) answer(q *mQuestion, accept bool) {
	res := wire.ElicitResult{Action: wire.ActionDecline}
	if accept {
		res = wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "n" + strconv.Itoa(m.Steps())}}
	}
	if err := m.widgets[q.ch].Answer(q.id, res); err != nil {
		m.Fatalf("the widget's answer to %v: %v", q, err)
	}
	m.settle(q, res, wire.OutcomeAnswered, time.Now())
}

// leave is c's caller closing its connection: nothing is written to it;
// a question asked without a key is withdrawn, a keyed one stays.
func (m *apiModel) leave(c *mCall) {
	c.cancel()
	c.answered, c.left = true, true
	if q := c.q; q != nil && q.key == "" && !q.settled {
		m.settle(q, wire.ElicitResult{Action: wire.ActionCancel}, wire.OutcomeCancelled, time.Now())
	}
}

func (m *apiModel) withdraw(ch, key string) {
	c := m.start("DELETE "+ch+" "+key, "DELETE", ch, key, "")
	m.forget()
	q := m.keyed[[2]string{ch, key}]
	switch {
	case q == nil:
		c.resolve(http.StatusNotFound, "unknown_question", nil, false)
	case q.withdrawn: // "Withdrawing again is another 204"
		c.resolve(http.StatusNoContent, "", nil, false)
	case q.settled:
		c.resolve(http.StatusConflict, "already_settled", nil, false)
	default:
		q.withdrawn = true
		m.settle(q, wire.ElicitResult{Action: wire.ActionCancel}, wire.OutcomeCancelled, time.Now())
		c.resolve(http.StatusNoContent, "", nil, false)
	}
}

// sleep lets d pass: the questions due meanwhile expire, each at its
// deadline, which is when its retention starts.
func (m *apiModel) sleep(d time.Duration) {
	end := time.Now().Add(d)
	var due []*mQuestion
	for _, q := range m.qs {
		if !q.settled && !q.deadline.After(end) {
			due = append(due, q)
		}
	}
	slices.SortStableFunc(due, func(a, b *mQuestion) int { return a.deadline.Compare(b.deadline) })
	for _, q := range due {
		m.settle(q, wire.ElicitResult{Action: wire.ActionCancel}, wire.OutcomeExpired, q.deadline)
	}
	time.Sleep(d)
}
