package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// withdraw sends DELETE path with an Idempotency-Key header per value.
func (s *server) withdraw(t *testing.T, path string, keys ...string) response {
	return s.keyedRequest(t.Context(), "DELETE", path, "", keys...)
}

// A keyed question outlives its caller's connection, so its caller takes
// it back by its key: the widgets hear it cancelled, a caller waiting
// with the key gets a cancel, and the key keeps that outcome (a late
// retry does not ask the person again). Withdrawing twice is the same.
func TestWithdrawKeyed(t *testing.T) {
	s := start(t, nil, apiKey)
	w, next := widget(t, s.h, "default")
	body := `{"params":` + nameForm + `,"requester":{"name":"deploy-bot"}}`
	id := s.askAndLeave(t, next, body, "deploy-7")
	waiting := make(chan response, 1)
	go func() { waiting <- s.ask(t.Context(), elicitPath, body, "deploy-7") }()
	take := nextWithin(w)
	noFrame(t, take, 100*time.Millisecond, "the retry waits for the same question")

	if r := s.withdraw(t, elicitPath, "deploy-7"); r.status != http.StatusNoContent {
		t.Fatalf("withdraw: %d %s; want 204", r.status, r.body)
	}
	r := <-waiting
	if r.status != http.StatusOK || r.body != `{"action":"cancel"}`+"\n" {
		t.Errorf("the waiting retry got %d %s; want a cancel", r.status, r.body)
	}
	f, ok := take(2 * time.Second)
	if !ok {
		t.Fatal("the widget did not hear the question go")
	}
	if gotID, outcome := settledOutcome(t, f); gotID != id || outcome != wire.OutcomeCancelled {
		t.Errorf("the widget heard %s; want %s cancelled", f, id)
	}

	late := s.ask(t.Context(), elicitPath, body, "deploy-7")
	if late.status != http.StatusOK || late.body != `{"action":"cancel"}`+"\n" || late.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("a later retry got %d %s (replayed %q); want the cancel kept", late.status, late.body, late.header.Get("Idempotent-Replayed"))
	}
	noFrame(t, take, 100*time.Millisecond, "a withdrawn question is not asked again")
	if r := s.withdraw(t, elicitPath, `"deploy-7"`); r.status != http.StatusNoContent {
		t.Errorf("withdrawing again: %d %s; want 204", r.status, r.body)
	}
	// An answer that comes too late hears the withdrawal, and is lost.
	w.Answer(id, wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}})
	if f, ok := take(2 * time.Second); !ok {
		t.Error("a late answer heard nothing")
	} else if _, outcome := settledOutcome(t, f); outcome != wire.OutcomeCancelled {
		t.Errorf("a late answer heard %s; want cancelled", f)
	}
	if r := s.ask(t.Context(), elicitPath, body, "deploy-7"); !strings.Contains(r.body, "cancel") {
		t.Errorf("after a late answer the key gives %d %s; want the cancel still", r.status, r.body)
	}
}

// What cannot be withdrawn says why, and leaves the question as it was.
func TestWithdrawKeyedRefused(t *testing.T) {
	s := start(t, nil, apiKey)
	w, next := widget(t, s.h, "default")
	for _, c := range []struct {
		name   string
		keys   []string
		status int
		code   string
	}{
		{"no key", nil, http.StatusBadRequest, "bad_request"},
		{"two keys", []string{"a", "b"}, http.StatusBadRequest, "bad_request"},
		{"a key never used", []string{"never-asked"}, http.StatusNotFound, "unknown_question"},
	} {
		if r := s.withdraw(t, elicitPath, c.keys...); r.status != c.status || r.errorCode() != c.code {
			t.Errorf("%s: %d %s; want %d %s", c.name, r.status, r.body, c.status, c.code)
		}
	}

	body := `{"params":` + nameForm + `}`
	asked := make(chan response, 1)
	go func() { asked <- s.ask(t.Context(), elicitPath, body, "k1") }()
	id := requestID(t, next())
	// The key is the channel's: another channel has no such question.
	if _, err := s.h.CreateChannel("team-b"); err != nil {
		t.Fatal(err)
	}
	if r := s.withdraw(t, "/api/v1/channels/team-b/elicitations", "k1"); r.status != http.StatusNotFound {
		t.Errorf("the key on another channel: %d %s; want 404", r.status, r.body)
	}
	w.Answer(id, wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}})
	if r := <-asked; r.status != http.StatusOK || !strings.Contains(r.body, "Ada") {
		t.Fatalf("the caller got %d %s; want the answer", r.status, r.body)
	}
	if r := s.withdraw(t, elicitPath, "k1"); r.status != http.StatusConflict || r.errorCode() != "already_settled" {
		t.Errorf("withdrawing an answered question: %d %s; want 409 already_settled", r.status, r.body)
	}
	if r := s.ask(t.Context(), elicitPath, body, "k1"); r.status != http.StatusOK || !strings.Contains(r.body, "Ada") {
		t.Errorf("a retry after the refused withdrawal: %d %s; want the answer kept", r.status, r.body)
	}
}

// A withdrawal and an answer that race agree on who won: 204 and the
// caller hears a cancel, or 409 and the caller hears the answer.
func TestWithdrawKeyedRacesAnswer(t *testing.T) {
	s := start(t, nil, apiKey)
	w, next := widget(t, s.h, "default")
	body := `{"params":` + nameForm + `}`
	won := map[int]int{}
	for i := range 40 {
		key := "race-" + strconv.Itoa(i)
		asked := make(chan response, 1)
		go func() { asked <- s.ask(t.Context(), elicitPath, body, key) }()
		f := next()
		for strings.Contains(f, wire.MethodSettled) { // the last round's
			f = next()
		}
		id := requestID(t, f)
		withdrawn := make(chan response, 1)
		go func() { withdrawn <- s.withdraw(t, elicitPath, key) }()
		time.Sleep(time.Duration(i%8) * 100 * time.Microsecond) // either may win
		w.Answer(id, wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}})
		wd := <-withdrawn
		r := <-asked
		switch {
		case wd.status == http.StatusNoContent && r.body == `{"action":"cancel"}`+"\n":
		case wd.status == http.StatusConflict && strings.Contains(r.body, "Ada"):
		default:
			t.Fatalf("round %d: withdraw %d %s, caller %d %s", i, wd.status, wd.body, r.status, r.body)
		}
		won[wd.status]++
	}
	t.Logf("withdrawals won %d, answers %d", won[http.StatusNoContent], won[http.StatusConflict])
}

// heldSubmit is the hub with each Submit held, once it has said so on
// entered, until release is closed: a request between claiming its key
// and reaching the hub.
type heldSubmit struct {
	*hub.Hub
	entered chan struct{}
	release chan struct{}
}

func (h heldSubmit) Submit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *hub.ElicitOptions, done func(*wire.ElicitResult, error)) {
	h.entered <- struct{}{}
	<-h.release
	h.Hub.Submit(ctx, channel, requester, params, opts, done)
}

// A withdrawal that comes while its question is still being asked waits
// for the hub's word: a question the hub refuses was never pending (404,
// and its caller hears the refusal), one it takes is withdrawn (204).
func TestWithdrawKeyedWhileAsked(t *testing.T) {
	for _, c := range []struct {
		name, channel    string
		full             bool // the channel holds its limit of pending requests
		withdraw, caller int
	}{
		{"no such channel", "nope", false, http.StatusNotFound, http.StatusNotFound},
		{"channel full", "default", true, http.StatusNotFound, http.StatusTooManyRequests},
		{"taken", "default", false, http.StatusNoContent, http.StatusOK}, // then withdrawn: a cancel
	} {
		t.Run(c.name, func(t *testing.T) {
			h := hub.New(&hub.Options{MaxPending: 1})
			if c.full {
				h.Submit(t.Context(), "default", wire.Implementation{Name: "other"}, json.RawMessage(nameForm), nil, func(*wire.ElicitResult, error) {})
			}
			held := heldSubmit{Hub: h, entered: make(chan struct{}), release: make(chan struct{})}
			s := startEngine(t, h, held)
			path := "/api/v1/channels/" + c.channel + "/elicitations"

			asked := make(chan response, 1)
			go func() { asked <- s.ask(t.Context(), path, `{"params":`+nameForm+`}`, "k1") }()
			<-held.entered // the key is claimed; the hub has not been asked
			withdrawn := make(chan response, 1)
			go func() { withdrawn <- s.withdraw(t, path, "k1") }()
			select {
			case r := <-withdrawn:
				t.Fatalf("the withdrawal answered %d %s before the hub had the question", r.status, r.body)
			case <-time.After(100 * time.Millisecond):
			}
			close(held.release)
			if r := <-withdrawn; r.status != c.withdraw || (r.status == http.StatusNotFound && r.errorCode() != "unknown_question") {
				t.Errorf("withdraw: %d %s; want %d (unknown_question when 404)", r.status, r.body, c.withdraw)
			}
			if r := <-asked; r.status != c.caller || (r.status == http.StatusOK && !strings.Contains(r.body, "cancel")) {
				t.Errorf("the caller got %d %s; want %d", r.status, r.body, c.caller)
			}
		})
	}
}

// answeredOnWithdraw is the hub, but each question it is given is
// answered the moment its caller withdraws it, before the hub could
// settle it as cancelled: the person's answer wins the race.
type answeredOnWithdraw struct {
	*hub.Hub
	entered chan struct{}
}

func (e answeredOnWithdraw) Submit(ctx context.Context, _ string, _ wire.Implementation, _ json.RawMessage, _ *hub.ElicitOptions, done func(*wire.ElicitResult, error)) {
	context.AfterFunc(ctx, func() {
		done(&wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}, nil)
	})
	e.entered <- struct{}{}
}

// An answer that beats its withdrawal is the outcome, though the
// withdrawal ended the question's context: the withdrawal hears 409
// already_settled, and the caller the answer.
func TestWithdrawLosesToAnswer(t *testing.T) {
	h := hub.New(nil)
	e := answeredOnWithdraw{Hub: h, entered: make(chan struct{}, 1)}
	s := startEngine(t, h, e)
	asked := make(chan response, 1)
	go func() { asked <- s.ask(t.Context(), elicitPath, `{"params":`+nameForm+`}`, "k1") }()
	<-e.entered
	if r := s.withdraw(t, elicitPath, "k1"); r.status != http.StatusConflict || r.errorCode() != "already_settled" {
		t.Errorf("withdraw: %d %s; want 409 already_settled", r.status, r.body)
	}
	if r := <-asked; r.status != http.StatusOK || !strings.Contains(r.body, `"accept"`) {
		t.Errorf("the caller got %d %s; want the answer", r.status, r.body)
	}
}
