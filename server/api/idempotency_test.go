package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

const elicitPath = "/api/v1/channels/default/elicitations"

// ask posts body with an Idempotency-Key header (values, as sent).
func (s *server) ask(ctx context.Context, path, body string, keys ...string) response {
	return s.keyedRequest(ctx, "POST", path, body, keys...)
}

// askAndLeave asks body with key, waits for the widget to get the
// question (next), then breaks the call as a caller whose connection
// drops; a keyed question stays pending. It returns the request's id.
func (s *server) askAndLeave(t *testing.T, next func() string, body, key string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan response, 1)
	go func() { first <- s.ask(ctx, elicitPath, body, key) }()
	id := requestID(t, next())
	cancel()
	if r := <-first; r.status != -1 {
		t.Fatalf("the broken call got %d %s", r.status, r.body)
	}
	return id
}

// keyedRequest sends method path with the API key and an Idempotency-Key
// header per value. It gives up after 10 s, so a question that is never
// answered fails the test instead of hanging it.
func (s *server) keyedRequest(ctx context.Context, method, path, body string, keys ...string) response {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, strings.NewReader(body))
	if err != nil {
		return response{status: -1, body: err.Error()}
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	for _, k := range keys {
		req.Header.Add("Idempotency-Key", k)
	}
	return send(req)
}

// noFrame fails if the widget's session has a frame within d.
func noFrame(t *testing.T, next func(time.Duration) (string, bool), d time.Duration, why string) {
	t.Helper()
	if f, ok := next(d); ok {
		t.Fatalf("%s, but the widget got %s", why, f)
	}
}

// A caller whose connection breaks asks again with the same key: the
// person is not asked twice, and the retry gets their answer, whether it
// came while nobody was waiting or after the retry.
func TestIdempotentRetry(t *testing.T) {
	for _, answeredWhileAway := range []bool{false, true} {
		name := map[bool]string{false: "answer after the retry", true: "answer while nobody waits"}[answeredWhileAway]
		t.Run(name, func(t *testing.T) {
			s := start(t, nil, apiKey)
			w, next := widget(t, s.h, "default")
			body := `{"params":` + nameForm + `,"requester":{"name":"crm"}}`
			id := s.askAndLeave(t, next, body, "order-1042")
			take := nextWithin(w)
			noFrame(t, take, 200*time.Millisecond, "the question must stay for a retry")

			answer := wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}
			if answeredWhileAway {
				if err := w.Answer(id, answer); err != nil {
					t.Fatal(err)
				}
			}
			retry := make(chan response, 1)
			go func() { retry <- s.ask(t.Context(), elicitPath, body, `"order-1042"`) }() // the header's quoted form
			if !answeredWhileAway {
				select {
				case r := <-retry:
					t.Fatalf("the retry returned before the answer: %d %s", r.status, r.body)
				case <-time.After(200 * time.Millisecond):
				}
				if err := w.Answer(id, answer); err != nil {
					t.Fatal(err)
				}
			}
			r := <-retry
			if r.status != http.StatusOK || r.body != `{"action":"accept","content":{"name":"Ada"}}`+"\n" {
				t.Fatalf("retry: %d %s; want the person's answer", r.status, r.body)
			}
			if r.header.Get("Idempotent-Replayed") != "true" {
				t.Error("the retry's response does not say it is the first request's")
			}
			// The widget heard the question once, then that it was answered.
			var m wire.Message
			f, _ := take(2 * time.Second)
			json.Unmarshal([]byte(f), &m)
			if m.Method != wire.MethodSettled {
				t.Errorf("the widget heard %s; want only the question settled", f)
			}
			noFrame(t, take, 100*time.Millisecond, "one question")

			// A third call with the key gets the answer at once.
			if r := s.ask(t.Context(), elicitPath, body, "order-1042"); r.status != http.StatusOK || !strings.Contains(r.body, "Ada") {
				t.Errorf("a later retry: %d %s; want the answer kept", r.status, r.body)
			}
		})
	}
}

// A key names one question: reused for another body it is refused, and
// on another channel it is another question.
func TestIdempotencyKeyScope(t *testing.T) {
	s := start(t, nil, apiKey)
	if _, err := s.h.CreateChannel("team-b"); err != nil {
		t.Fatal(err)
	}
	w, next := widget(t, s.h, "default")
	wb, nextB := widget(t, s.h, "team-b")
	body := `{"params":` + nameForm + `}`
	go s.ask(t.Context(), elicitPath, body, "k1")
	id := requestID(t, next())

	other := `{"params":{"message":"Something else?","requestedSchema":{"type":"object","properties":{}}}}`
	r := s.ask(t.Context(), elicitPath, other, "k1")
	if r.status != http.StatusUnprocessableEntity || r.errorCode() != "key_reused" {
		t.Errorf("the key with another question: %d %s; want 422 key_reused", r.status, r.body)
	}
	if r := s.ask(t.Context(), elicitPath, `{"params":`+nameForm+`,"timeoutSeconds":30}`, "k1"); r.status != http.StatusUnprocessableEntity {
		t.Errorf("the key with another timeout: %d %s; want 422", r.status, r.body)
	}
	// Spacing in the params is not a different question.
	spaced := `{"params": ` + strings.ReplaceAll(nameForm, `,"`, `, "`) + `}`
	same := make(chan response, 1)
	go func() { same <- s.ask(t.Context(), elicitPath, spaced, "k1") }()

	onB := make(chan response, 1)
	go func() { onB <- s.ask(t.Context(), "/api/v1/channels/team-b/elicitations", body, "k1") }()
	idB := requestID(t, nextB())
	wb.Answer(idB, wire.ElicitResult{Action: "decline"})
	if r := <-onB; r.status != http.StatusOK || !strings.Contains(r.body, "decline") {
		t.Errorf("team-b: %d %s; want its own question's answer", r.status, r.body)
	}
	w.Answer(id, wire.ElicitResult{Action: "cancel"})
	if r := <-same; r.status != http.StatusOK || !strings.Contains(r.body, "cancel") {
		t.Errorf("the respaced retry: %d %s; want the first question's answer", r.status, r.body)
	}
}

// A refused question keeps nothing under its key: the caller fixes the
// body and asks again with it.
func TestIdempotencyKeyAfterRefusal(t *testing.T) {
	s := start(t, nil, apiKey)
	_, next := widget(t, s.h, "default")
	bad := `{"params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}}`
	if r := s.ask(t.Context(), elicitPath, bad, "k2"); r.status != http.StatusBadRequest || r.errorCode() != "invalid_params" {
		t.Fatalf("%d %s; want 400 invalid_params", r.status, r.body)
	}
	go s.ask(t.Context(), elicitPath, `{"params":`+nameForm+`}`, "k2")
	requestID(t, next())
}

func TestIdempotencyKeyMalformed(t *testing.T) {
	s := start(t, nil, apiKey)
	for name, keys := range map[string][]string{
		"empty":     {""},
		"quotes":    {`""`},
		"too long":  {strings.Repeat("k", 256)},
		"space":     {"a b"},
		"non-ASCII": {"clé"},
		"two":       {"a", "b"},
	} {
		t.Run(name, func(t *testing.T) {
			r := s.ask(t.Context(), elicitPath, `{"params":`+nameForm+`}`, keys...)
			if r.status != http.StatusBadRequest || r.errorCode() != "bad_request" || !strings.Contains(r.body, "Idempotency-Key") {
				t.Errorf("%d %s; want 400 bad_request naming the header", r.status, r.body)
			}
		})
	}
}

// The edges of a well-formed Idempotency-Key: 255 characters, the first
// and last visible ASCII characters, a lone quote. The key is taken, so
// the bad params that follow are what is refused.
func TestIdempotencyKeyEdges(t *testing.T) {
	s := start(t, nil, apiKey)
	bad := `{"params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}}`
	for name, key := range map[string]string{
		"255 characters": strings.Repeat("k", 255),
		"! and ~":        "!~",
		"a lone quote":   `"`,
	} {
		t.Run(name, func(t *testing.T) {
			if r := s.ask(t.Context(), elicitPath, bad, key); r.status != http.StatusBadRequest || r.errorCode() != "invalid_params" {
				t.Errorf("%d %s; want 400 invalid_params: the key taken, the params refused", r.status, r.body)
			}
		})
	}
}

// nextWithin returns a function that takes the session's next frame, if
// one comes within d. It reads the session itself: make it after the
// widget helper's next has handed over every frame it took.
func nextWithin(s *hub.Session) func(time.Duration) (string, bool) {
	var buf [][]byte
	return func(d time.Duration) (string, bool) {
		deadline := time.Now().Add(d)
		for len(buf) == 0 {
			buf, _ = s.Take(buf)
			if len(buf) > 0 {
				break
			}
			if time.Now().After(deadline) {
				return "", false
			}
			time.Sleep(5 * time.Millisecond)
		}
		f := string(buf[0])
		buf = buf[1:]
		return f, true
	}
}

// A channel deleted and made again under its name is another channel:
// its person is asked, not answered from the old one's keys.
func TestIdempotencyKeyChannelRecreated(t *testing.T) {
	s := start(t, nil, apiKey)
	const path = "/api/v1/channels/team-x/elicitations"
	body := `{"params":` + nameForm + `}`
	answerThenDelete(t, s, path, body)
	if _, err := s.h.CreateChannel("team-x"); err != nil {
		t.Fatal(err)
	}
	_, next := widget(t, s.h, "team-x")
	go s.ask(t.Context(), path, body, "refund-1042")
	requestID(t, next()) // asked anew
}

// answerThenDelete makes channel team-x, asks body there with key
// refund-1042, has its widget answer "Ada", then deletes the channel.
func answerThenDelete(t *testing.T, s *server, path, body string) {
	t.Helper()
	if _, err := s.h.CreateChannel("team-x"); err != nil {
		t.Fatal(err)
	}
	w, next := widget(t, s.h, "team-x")
	asked := make(chan response, 1)
	go func() { asked <- s.ask(t.Context(), path, body, "refund-1042") }()
	w.Answer(requestID(t, next()), wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}})
	if r := <-asked; r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r := s.do(t, t.Context(), "DELETE", "/api/v1/channels/team-x", "", apiKey); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
}

// afterDelete is the hub with a step run right after it deletes a
// channel, before the handler that asked has returned.
type afterDelete struct {
	*hub.Hub
	then func(channel string)
}

func (h afterDelete) DeleteChannel(name string) error {
	err := h.Hub.DeleteChannel(name)
	if err == nil {
		h.then(name)
	}
	return err
}

// A retry that comes while its channel is being deleted, once a channel
// of that name exists again, waits until the delete has forgotten the
// old channel's keys: its person is asked, and it is not answered from
// the deleted channel.
func TestIdempotencyKeyDuringDelete(t *testing.T) {
	h := hub.New(nil)
	var s *server
	retried := make(chan response, 1)
	var (
		wNew    *hub.Session
		nextNew func() string
	)
	const path = "/api/v1/channels/team-x/elicitations"
	body := `{"params":` + nameForm + `}`
	engine := afterDelete{Hub: h, then: func(channel string) {
		if _, err := h.CreateChannel(channel); err != nil {
			t.Error(err)
			return
		}
		wNew, nextNew = widget(t, h, channel)
		go func() { retried <- s.ask(t.Context(), path, body, "refund-1042") }()
		// Long enough for a retry that does not wait to be answered.
		select {
		case r := <-retried:
			retried <- r
		case <-time.After(200 * time.Millisecond):
		}
	}}
	s = startEngine(t, h, engine)

	answerThenDelete(t, s, path, body)
	select {
	case r := <-retried:
		t.Fatalf("the retry was answered from the deleted channel: %d %s", r.status, r.body)
	default:
	}
	// Asked anew on the new channel, and answered from there.
	wNew.Answer(requestID(t, nextNew()), wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}})
	r := <-retried
	if r.status != http.StatusOK || !strings.Contains(r.body, "Grace") || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the retry got %d %s (replayed %q); want the new channel's answer", r.status, r.body, r.header.Get("Idempotent-Replayed"))
	}
}
