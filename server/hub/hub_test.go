package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

func TestAuthenticate(t *testing.T) {
	h := newHub(t, &hub.Options{DefaultToken: "s3cret-default-token"})
	ch, err := h.CreateChannel("team-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Token) < 26 {
		t.Errorf("token %d characters; want at least 26 (128 bits of base32)", len(ch.Token))
	}
	tests := []struct {
		name, token, want string
		ok                bool
	}{
		{"default", "s3cret-default-token", "default", true},
		{"created", ch.Token, "team-a", true},
		{"empty", "", "", false},
		{"wrong", "s3cret-default-tokeN", "", false},
		{"prefix", "s3cret", "", false},
		{"longer", "s3cret-default-token!", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := h.Authenticate(tt.token)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Authenticate = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
	if err := h.DeleteChannel("team-a"); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Authenticate(ch.Token); ok {
		t.Error("the token of a deleted channel still opens it")
	}
}

func TestGeneratedDefaultToken(t *testing.T) {
	a, b := newHub(t, nil), newHub(t, nil)
	if a.DefaultToken() == b.DefaultToken() || len(a.DefaultToken()) < 26 {
		t.Errorf("generated tokens %q and %q: want distinct, 26+ characters", a.DefaultToken(), b.DefaultToken())
	}
	if got, ok := a.Authenticate(a.DefaultToken()); !ok || got != hub.DefaultChannel {
		t.Errorf("the generated token opens %q, %v", got, ok)
	}
}

func TestChannels(t *testing.T) {
	h := newHub(t, nil)
	tests := []struct {
		name    string
		do      func() error
		wantErr error
	}{
		{"create", func() error { _, err := h.CreateChannel("ops"); return err }, nil},
		{"twice", func() error { _, err := h.CreateChannel("ops"); return err }, hub.ErrChannelExists},
		{"default exists", func() error { _, err := h.CreateChannel("default"); return err }, hub.ErrChannelExists},
		{"every kind of character", func() error { _, err := h.CreateChannel("a-z_0-9"); return err }, nil},
		{"bad name", func() error { _, err := h.CreateChannel("Ops/../x"); return err }, hub.ErrBadChannelName},
		{"too long", func() error { _, err := h.CreateChannel(strings.Repeat("a", 65)); return err }, hub.ErrBadChannelName},
		{"delete default", func() error { return h.DeleteChannel("default") }, hub.ErrDefaultChannel},
		{"delete unknown", func() error { return h.DeleteChannel("nope") }, hub.ErrNoChannel},
		{"delete", func() error { return h.DeleteChannel("ops") }, nil},
		{"elicit deleted", func() error {
			_, err := h.Elicit(t.Context(), "ops", requester, json.RawMessage(nameForm), nil)
			return err
		}, hub.ErrNoChannel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v; want %v", err, tt.wantErr)
			}
		})
	}
	random, err := h.CreateChannel("")
	if err != nil || !strings.HasPrefix(random.Name, "c-") {
		t.Errorf("CreateChannel(\"\") = %+v, %v; want a random c-… name", random, err)
	}
}

// TestMaxChannels: past the limit (not counting "default") a new channel
// is refused until one is deleted.
func TestMaxChannels(t *testing.T) {
	h := newHub(t, &hub.Options{MaxChannels: 2})
	for _, name := range []string{"a", "b"} {
		if _, err := h.CreateChannel(name); err != nil {
			t.Fatalf("channel %s: %v", name, err)
		}
	}
	if _, err := h.CreateChannel(""); !errors.Is(err, hub.ErrTooManyChannels) {
		t.Fatalf("a third channel: err = %v; want ErrTooManyChannels", err)
	}
	if err := h.DeleteChannel("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CreateChannel("c"); err != nil {
		t.Errorf("after deleting one: %v", err)
	}
}

func TestElicitBadSchema(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", true)
	tests := []struct {
		name, params string
		wantPath     string
	}{
		{"no message", `{"requestedSchema":{"type":"object","properties":{}}}`, ""},
		{"nested", `{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}`, "/requestedSchema/properties/a/type"},
		{"not an object", `[1,2]`, ""},
		{"url without id", `{"mode":"url","message":"m","url":"https://example.com"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.Elicit(t.Context(), "default", requester, json.RawMessage(tt.params), nil)
			var werr *wire.Error
			if !errors.As(err, &werr) || werr.Code != wire.CodeInvalidParams {
				t.Fatalf("err = %v; want a -32602 *wire.Error", err)
			}
			probs, ok := werr.Data.([]elicit.Problem)
			if !ok || len(probs) == 0 {
				t.Fatalf("data = %#v; want the problems", werr.Data)
			}
			if tt.wantPath != "" && probs[0].Path != tt.wantPath {
				t.Errorf("first problem at %q; want %q (%v)", probs[0].Path, tt.wantPath, probs)
			}
		})
	}
	w.none() // nothing reached a person
}

func TestElicitUnknownChannel(t *testing.T) {
	h := newHub(t, nil)
	if _, err := h.Elicit(t.Context(), "nope", requester, json.RawMessage(nameForm), nil); !errors.Is(err, hub.ErrNoChannel) {
		t.Errorf("err = %v; want ErrNoChannel", err)
	}
	if err := h.Complete("nope", "x"); !errors.Is(err, hub.ErrNoChannel) {
		t.Errorf("Complete err = %v; want ErrNoChannel", err)
	}
	if _, err := h.Attach("nope", nil); !errors.Is(err, hub.ErrNoChannel) {
		t.Errorf("Attach err = %v; want ErrNoChannel", err)
	}
}

// An answer settles once: the first valid answer wins, the other widget
// hears answered-elsewhere, and late answers change nothing.
func TestAnswerOnce(t *testing.T) {
	h := newHub(t, nil)
	a, b := attach(t, h, "default", false), attach(t, h, "default", false)
	call := elicitAsync(t.Context(), h, "default", nameForm, nil)
	rawA, rawB := a.nextRaw(), b.nextRaw()
	if &rawA[0] != &rawB[0] {
		t.Error("each widget got its own copy of the frame; want one encoding shared")
	}
	var m wire.Message
	json.Unmarshal(rawA, &m)
	id, _ := wire.StringID(m.ID)

	want := wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada", "age": float64(36)}}
	if err := a.s.Answer(id, want); err != nil {
		t.Fatal(err)
	}
	res, err := call.wait(t)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if got := a.settled(); got.Outcome != wire.OutcomeAnswered || got.RequestID != id {
		t.Errorf("answering widget heard %+v; want answered", got)
	}
	if got := b.settled(); got.Outcome != wire.OutcomeAnsweredElsewhere {
		t.Errorf("other widget heard %+v; want answered-elsewhere", got)
	}

	// Late answers: b's different answer, and a's retry of the same one.
	if err := b.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline}); err != nil {
		t.Fatal(err)
	}
	if got := b.settled(); got.Outcome != wire.OutcomeAnsweredElsewhere {
		t.Errorf("late different answer heard %q; want answered-elsewhere", got.Outcome)
	}
	if err := a.s.Answer(id, want); err != nil {
		t.Fatal(err)
	}
	if got := a.settled(); got.Outcome != wire.OutcomeAnswered {
		t.Errorf("retried answer heard %q; want answered", got.Outcome)
	}
	if err := a.s.Answer("never-sent", want); !errors.Is(err, hub.ErrUnknownRequest) {
		t.Errorf("answer to an unknown id: %v; want ErrUnknownRequest", err)
	}
}

// The widgets another widget's answer beat hear how it was answered (a
// colleague declined, not just "answered"), and so does a late answer;
// other outcomes name no action.
func TestAnsweredElsewhereSaysHow(t *testing.T) {
	h := newHub(t, nil)
	a, b := attach(t, h, "default", false), attach(t, h, "default", false)
	call := elicitAsync(t.Context(), h, "default", nameForm, nil)
	id, _ := a.request()
	b.request()
	if err := a.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline}); err != nil {
		t.Fatal(err)
	}
	call.wait(t)
	if got := a.settled(); got.Outcome != wire.OutcomeAnswered || got.Action != "" {
		t.Errorf("answering widget heard %+v; want answered, no action", got)
	}
	if got := b.settled(); got.Outcome != wire.OutcomeAnsweredElsewhere || got.Action != wire.ActionDecline {
		t.Errorf("other widget heard %+v; want answered-elsewhere, decline", got)
	}
	b.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}})
	if got := b.settled(); got.Outcome != wire.OutcomeAnsweredElsewhere || got.Action != wire.ActionDecline {
		t.Errorf("late answer heard %+v; want answered-elsewhere, decline", got)
	}

	ctx, cancel := context.WithCancel(t.Context())
	call = elicitAsync(ctx, h, "default", nameForm, nil)
	id, _ = a.request()
	cancel()
	call.wait(t)
	if got := a.settled(); got.Outcome != wire.OutcomeCancelled || got.Action != "" {
		t.Errorf("widget heard %+v; want cancelled, no action", got)
	}
	a.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline})
	if got := a.settled(); got.Outcome != wire.OutcomeCancelled || got.Action != "" {
		t.Errorf("late answer heard %+v; want cancelled, no action", got)
	}
}

// Content that fails validation is not forwarded; the request stays
// pending and a later valid answer settles it.
func TestRejectedStaysPending(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	call := elicitAsync(t.Context(), h, "default", nameForm, nil)
	id, _ := w.request()

	tests := []struct {
		name     string
		content  map[string]any
		wantCode []string
	}{
		{"missing required", nil, []string{elicit.CodeRequired}},
		{"too short", map[string]any{"name": "A"}, []string{elicit.CodeTooShort}},
		{"wrong type", map[string]any{"name": "Ada", "age": "old"}, []string{elicit.CodeWrongType}},
		{"fraction", map[string]any{"name": "Ada", "age": 1.5}, []string{elicit.CodeNotInteger}},
		{"unknown key", map[string]any{"name": "Ada", "admin": true}, []string{elicit.CodeUnknownKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: tt.content}); err != nil {
				t.Fatal(err)
			}
			got := w.settled()
			if got.Outcome != wire.OutcomeRejected {
				t.Fatalf("outcome %q; want rejected", got.Outcome)
			}
			var codes []string
			for _, e := range got.Errors {
				codes = append(codes, e.Code)
				if e.Message == "" {
					t.Errorf("field error %+v has no message for the person", e)
				}
			}
			if diff := cmp.Diff(tt.wantCode, codes); diff != "" {
				t.Errorf("error codes (-want +got):\n%s", diff)
			}
		})
	}
	select {
	case <-call.done:
		t.Fatal("an invalid answer settled the request")
	default:
	}
	if err := w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}); err != nil {
		t.Fatal(err)
	}
	res, err := call.wait(t)
	if err != nil || res.Action != wire.ActionAccept || res.Content["name"] != "Ada" {
		t.Errorf("result %+v, %v; want accept with name Ada", res, err)
	}
}

// Decline and cancel carry no content, whatever the widget sends.
func TestDeclineDropsContent(t *testing.T) {
	for _, action := range []string{wire.ActionDecline, wire.ActionCancel} {
		t.Run(action, func(t *testing.T) {
			h := newHub(t, nil)
			w := attach(t, h, "default", false)
			call := elicitAsync(t.Context(), h, "default", nameForm, nil)
			id, _ := w.request()
			if err := w.s.Answer(id, wire.ElicitResult{Action: action, Content: map[string]any{"name": "leak"}}); err != nil {
				t.Fatal(err)
			}
			res, err := call.wait(t)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&wire.ElicitResult{Action: action}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBadAction(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	elicitAsync(t.Context(), h, "default", nameForm, nil)
	id, _ := w.request()
	var werr *wire.Error
	if err := w.s.Answer(id, wire.ElicitResult{Action: "maybe"}); !errors.As(err, &werr) || werr.Code != wire.CodeInvalidParams {
		t.Errorf("err = %v; want -32602", err)
	}
}

// The bridge adds who asks and when under _meta, keeps the server's own
// _meta keys and the schema's property order, and replaces a server's
// attempt to speak for the bridge.
func TestCreateFrame(t *testing.T) {
	h := newHub(t, &hub.Options{Timeout: 90_000_000_000})
	w := attach(t, h, "default", false)
	params := `{"message":"m","_meta":{"x/trace":"abc","formbridge/request":{"requester":{"name":"spoof"}}},` +
		`"requestedSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"boolean"}}}}`
	elicitAsync(t.Context(), h, "default", params, nil)
	_, p := w.request()
	meta, ok := p.RequestMeta()
	if !ok {
		t.Fatalf("no %s in _meta: %s", wire.MetaKey, p.Meta)
	}
	if meta.Requester != requester {
		t.Errorf("requester %+v; want %+v", meta.Requester, requester)
	}
	if d := meta.ExpiresAt.Sub(meta.CreatedAt); d.Seconds() != 90 {
		t.Errorf("expiresAt - createdAt = %v; want the 90 s timeout", d)
	}
	if string(p.Meta["x/trace"]) != `"abc"` {
		t.Errorf("the server's _meta key was lost: %s", p.Meta["x/trace"])
	}
	form, err := elicit.Parse(p.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range form.Fields {
		keys = append(keys, f.Key)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, keys); diff != "" {
		t.Errorf("property order (-want +got):\n%s", diff)
	}
	if meta.Form == nil {
		t.Fatal("no form in the bridge's _meta")
	}
	keys = keys[:0]
	for _, f := range meta.Form.Fields {
		keys = append(keys, f.Key)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, keys); diff != "" {
		t.Errorf("the form sent keeps another order (-want +got):\n%s", diff)
	}
}

// The bridge sends what it made of the params, so the widget need not
// parse them: the form and its sensitive fields, or the checked link. A
// server cannot hand the widget a form of its own under the bridge's key.
func TestCreateFrameView(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", true)
	ctx := t.Context()
	form := `{"message":"Sign in","_meta":{"formbridge/request":{"form":{"fields":[{"key":"evil","kind":"string","label":"Evil"}]}}},` +
		`"requestedSchema":{"type":"object","properties":{"user":{"type":"string","title":"User name"},` +
		`"password":{"type":"string"},"n":{"type":"integer","default":3},"tags":{"type":"array","items":{"enum":["a","b"]},"default":["b"]}},"required":["user"]}}`
	elicitAsync(ctx, h, "default", form, nil)
	_, p := w.request()
	meta, ok := p.RequestMeta()
	if !ok || meta.Form == nil {
		t.Fatalf("no form in _meta: %s", p.Meta)
	}
	want, err := elicit.ParseRequest([]byte(form))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Form, meta.Form, cmpopts.IgnoreUnexported(elicit.Field{})); diff != "" {
		t.Errorf("form sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.Form.Sensitive(), meta.Sensitive); diff != "" || len(meta.Sensitive) != 1 {
		t.Errorf("sensitive fields sent (-want +got):\n%s", diff)
	}
	if meta.Link != nil {
		t.Errorf("a form request carries a link: %+v", meta.Link)
	}
	if d, ok := meta.Form.Field("tags").Default.([]string); !ok || len(d) != 1 || d[0] != "b" {
		t.Errorf("multi select default decoded as %#v", meta.Form.Field("tags").Default)
	}

	elicitAsync(ctx, h, "default", `{"mode":"url","message":"Pay","elicitationId":"e1","url":"https://pay.example.com:8443/x"}`, nil)
	_, p = w.request()
	meta, ok = p.RequestMeta()
	if !ok || meta.Link == nil {
		t.Fatalf("no link in _meta: %s", p.Meta)
	}
	if meta.Link.URL != p.URL || meta.Link.Domain != "example.com" || len(meta.Link.Warnings) != 1 || meta.Link.Warnings[0].Code != "port" {
		t.Errorf("link sent: %+v", meta.Link)
	}
	if meta.Form != nil || meta.Sensitive != nil {
		t.Errorf("a URL request carries a form: %+v %+v", meta.Form, meta.Sensitive)
	}
}

// A widget that attaches later gets every pending request, in arrival
// order, and only the modes it declared.
func TestBacklog(t *testing.T) {
	h := newHub(t, nil)
	first := attach(t, h, "default", true)
	ctx := t.Context()
	elicitAsync(ctx, h, "default", `{"message":"one","requestedSchema":{"type":"object","properties":{}}}`, nil)
	first.request()
	elicitAsync(ctx, h, "default", urlRequest, nil)
	first.request()
	elicitAsync(ctx, h, "default", `{"message":"three","requestedSchema":{"type":"object","properties":{}}}`, nil)
	first.request()

	late := attach(t, h, "default", true)
	formOnly := attach(t, h, "default", false)
	if late.s.Backlog() != 3 || formOnly.s.Backlog() != 2 {
		t.Errorf("backlogs %d and %d; want 3 and 2", late.s.Backlog(), formOnly.s.Backlog())
	}
	var got []string
	for range 3 {
		_, p := late.request()
		got = append(got, p.Message)
	}
	if diff := cmp.Diff([]string{"one", "Connect your account", "three"}, got); diff != "" {
		t.Errorf("backlog order (-want +got):\n%s", diff)
	}
	got = nil
	for range 2 {
		_, p := formOnly.request()
		got = append(got, p.Message)
	}
	if diff := cmp.Diff([]string{"one", "three"}, got); diff != "" {
		t.Errorf("form-only backlog (-want +got):\n%s", diff)
	}
}

func TestURLMode(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", true)
	formOnly := attach(t, h, "default", false)
	if err := h.Complete("default", "e-42"); err != nil {
		t.Fatalf("Complete of an unknown id: %v; want it ignored", err)
	}
	call := elicitAsync(t.Context(), h, "default", urlRequest, nil)
	id, p := w.request()
	if !p.IsURL() || p.URL != "https://example.com/connect" || p.ElicitationID != "e-42" {
		t.Errorf("params %+v", p)
	}
	if err := formOnly.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept}); !errors.Is(err, hub.ErrUnknownRequest) {
		t.Errorf("a form-only widget answered a URL request: %v", err)
	}
	// Content on a URL-mode accept is dropped: accept means consent.
	if err := w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"x": "y"}}); err != nil {
		t.Fatal(err)
	}
	res, err := call.wait(t)
	if err != nil || res.Action != wire.ActionAccept || res.Content != nil {
		t.Fatalf("result %+v, %v; want a bare accept", res, err)
	}
	if got := w.settled(); got.Outcome != wire.OutcomeAnswered {
		t.Errorf("outcome %q", got.Outcome)
	}
	if err := h.Complete("default", "e-42"); err != nil {
		t.Fatal(err)
	}
	m := w.next()
	var cp wire.CompleteParams
	json.Unmarshal(m.Params, &cp)
	if m.Method != wire.MethodComplete || cp.ElicitationID != "e-42" {
		t.Errorf("got %s %s; want complete for e-42", m.Method, m.Params)
	}
	h.Complete("default", "e-42") // finished: ignored
	w.none()
	formOnly.none()
}

// A declined URL request will never complete: a later complete is ignored.
func TestURLDeclinedIgnoresComplete(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", true)
	call := elicitAsync(t.Context(), h, "default", urlRequest, nil)
	id, _ := w.request()
	w.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline})
	call.wait(t)
	w.settled()
	h.Complete("default", "e-42")
	w.none()
}

func TestCallerGivesUp(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	ctx, cancel := context.WithCancel(t.Context())
	call := elicitAsync(ctx, h, "default", nameForm, nil)
	id, _ := w.request()
	cancel()
	if _, err := call.wait(t); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
	if got := w.settled(); got.Outcome != wire.OutcomeCancelled || got.RequestID != id {
		t.Errorf("widget heard %+v; want cancelled", got)
	}
	late := attach(t, h, "default", false)
	if late.s.Backlog() != 0 {
		t.Error("a withdrawn request is still pending")
	}
}

func TestMaxWidgets(t *testing.T) {
	h := newHub(t, &hub.Options{MaxWidgets: 2})
	a := attach(t, h, "default", false)
	attach(t, h, "default", false)
	if _, err := h.Attach("default", nil); !errors.Is(err, hub.ErrTooManyWidgets) {
		t.Fatalf("third widget: %v; want ErrTooManyWidgets", err)
	}
	if n := h.Widgets("default"); n != 2 {
		t.Errorf("Widgets = %d; want 2", n)
	}
	a.s.Close()
	if n := h.Widgets("default"); n != 1 {
		t.Errorf("Widgets after a Close = %d; want 1", n)
	}
	attach(t, h, "default", false) // a's place is free again
	if n := h.Widgets("nope"); n != 0 {
		t.Errorf("Widgets of an unknown channel = %d", n)
	}
}

func TestDeleteChannelSettles(t *testing.T) {
	h := newHub(t, nil)
	ch, _ := h.CreateChannel("chat-1")
	w := attach(t, h, ch.Name, false)
	call := elicitAsync(t.Context(), h, ch.Name, nameForm, nil)
	w.request()
	if err := h.DeleteChannel(ch.Name); err != nil {
		t.Fatal(err)
	}
	res, err := call.wait(t)
	if err != nil || res.Action != wire.ActionCancel {
		t.Errorf("result %+v, %v; want cancel", res, err)
	}
	if got := w.settled(); got.Outcome != wire.OutcomeCancelled {
		t.Errorf("outcome %q; want cancelled", got.Outcome)
	}
	if _, err := w.s.Take(nil); !errors.Is(err, hub.ErrChannelDeleted) {
		t.Errorf("session ended with %v; want ErrChannelDeleted", err)
	}
}

// A token checked just before its channel is deleted and made again
// under the same name does not open the new channel: Attach checks it
// against the channel it finds.
func TestAttachChecksTheToken(t *testing.T) {
	h := newHub(t, nil)
	old, _ := h.CreateChannel("chat-1")
	name, ok := h.Authenticate(old.Token)
	if !ok || name != "chat-1" {
		t.Fatalf("Authenticate = %q, %v", name, ok)
	}
	if err := h.DeleteChannel("chat-1"); err != nil {
		t.Fatal(err)
	}
	fresh, err := h.CreateChannel("chat-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Attach(name, &hub.AttachOptions{Token: old.Token}); !errors.Is(err, hub.ErrChannelDeleted) {
		t.Errorf("Attach with the deleted channel's token: %v; want ErrChannelDeleted", err)
	}
	s, err := h.Attach(name, &hub.AttachOptions{Token: fresh.Token})
	if err != nil {
		t.Fatalf("Attach with the new channel's token: %v", err)
	}
	s.Close()
}

// A widget that does not drain its queue is cut off; the hub and the
// other widgets go on.
func TestSlowWidget(t *testing.T) {
	h := newHub(t, &hub.Options{MaxQueue: 3, MaxPending: 10})
	slow := attach(t, h, "default", false)
	fast := attach(t, h, "default", false)
	for range 4 {
		elicitAsync(t.Context(), h, "default", nameForm, nil)
		fast.request()
	}
	// The hub offers each request to the sessions in map order: the fast
	// one may have its fourth before the slow one is offered it.
	for deadline := time.Now().Add(5 * time.Second); slow.s.Err() == nil && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if _, err := slow.s.Take(nil); !errors.Is(err, hub.ErrSlowWidget) {
		t.Errorf("slow widget's session: %v; want ErrSlowWidget", err)
	}
}

// The requester is shown to the person and comes from outside: overlong
// fields are cut, not passed on whole.
func TestRequesterBounded(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	long := wire.Implementation{Name: strings.Repeat("n", 5000), Title: strings.Repeat("é", 300), Version: "1"}
	go h.Elicit(t.Context(), "default", long, json.RawMessage(nameForm), nil)
	_, p := w.request()
	meta, _ := p.RequestMeta()
	for _, s := range []string{meta.Requester.Name, meta.Requester.Title} {
		if n := len([]rune(s)); n != 200 || !strings.HasSuffix(s, "…") {
			t.Errorf("requester field of %d characters (%.10q…); want 200 ending in …", n, s)
		}
	}
	if meta.Requester.Version != "1" {
		t.Errorf("version %q; want it untouched", meta.Requester.Version)
	}

	// A direction override would show "Payroll" as "Payllor".
	odd := wire.Implementation{Name: "payroll", Title: "Pay\u202eroll\u202c Bot"}
	go h.Elicit(t.Context(), "default", odd, json.RawMessage(nameForm), nil)
	_, p = w.request()
	meta, _ = p.RequestMeta()
	if meta.Requester.Title != "Payroll Bot" || meta.Requester.Name != "payroll" {
		t.Errorf("requester %+v; want the title without its direction controls", meta.Requester)
	}
}

// A caller that left before asking shows nothing to anyone.
func TestElicitAfterCallerLeft(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.Elicit(ctx, "default", requester, json.RawMessage(nameForm), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
	w.none()
}

// A widget cut off for not keeping up is woken to hear it, and its queue
// is dropped: it reconnects and gets every pending request again.
func TestSlowWidgetWokenAndDropped(t *testing.T) {
	h := newHub(t, &hub.Options{MaxQueue: 1})
	w := attach(t, h, "default", false)
	elicitAsync(t.Context(), h, "default", nameForm, nil)
	<-w.wake // the first request, queued and not taken
	elicitAsync(t.Context(), h, "default", nameForm, nil)
	select {
	case <-w.wake:
	case <-time.After(10 * time.Second):
		t.Fatal("the widget was not woken when it was cut off")
	}
	frames, err := w.s.Take(nil)
	if !errors.Is(err, hub.ErrSlowWidget) || len(frames) != 0 {
		t.Errorf("Take = %d frames, %v; want none, ErrSlowWidget", len(frames), err)
	}
}

// A widget's writer is woken when its channel goes, even with nothing
// queued, so that it closes the connection.
func TestDetachWakesTheWidget(t *testing.T) {
	h := newHub(t, nil)
	ch, _ := h.CreateChannel("chat-1")
	w := attach(t, h, ch.Name, false)
	if err := h.DeleteChannel(ch.Name); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.wake:
	default:
		t.Fatal("the widget was not woken when its channel was deleted")
	}
	if !w.s.Queued() {
		t.Error("Queued = false for an ended session; want true, so a writer that went idle closes it")
	}
	if _, err := w.s.Take(nil); !errors.Is(err, hub.ErrChannelDeleted) {
		t.Errorf("session ended with %v; want ErrChannelDeleted", err)
	}
}

// Queued says whether frames wait: not for a fresh widget, yes once one
// is queued, not after Take.
func TestQueued(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	if w.s.Queued() {
		t.Error("Queued = true for a fresh widget with nothing pending")
	}
	elicitAsync(t.Context(), h, "default", nameForm, nil)
	<-w.wake
	if !w.s.Queued() {
		t.Error("Queued = false with a request queued")
	}
	if frames, err := w.s.Take(nil); len(frames) != 1 || err != nil {
		t.Fatalf("Take = %d frames, %v; want 1, nil", len(frames), err)
	}
	if w.s.Queued() {
		t.Error("Queued = true after Take emptied the queue")
	}
}

// A widget that closed its session can no longer answer: its request
// stays pending for the others.
func TestClosedSessionCannotAnswer(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	elicitAsync(t.Context(), h, "default", nameForm, nil)
	id, _ := w.request()
	w.s.Close()
	if w.s.Err() == nil {
		t.Error("Err = nil after Close")
	}
	if err := w.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline}); err == nil {
		t.Error("a closed session's answer was taken")
	}
	if n := h.Pending("default"); n != 1 {
		t.Errorf("%d pending after a closed session answered; want 1", n)
	}
}
