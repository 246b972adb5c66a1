package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// bridged is meta as a bridge sends it with params: with the bridge's
// reading of them (the form and its sensitive fields, or the checked
// link), through JSON and decoded as the client decodes it. Params a
// bridge would refuse get no reading.
func bridged(t *testing.T, params wire.ElicitParams, meta wire.RequestMeta) wire.RequestMeta {
	t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	if req, err := elicit.ParseRequest(raw); err == nil {
		meta.Form, meta.Link = req.Form, req.URL
		if req.Form != nil {
			meta.Sensitive = req.Form.Sensitive()
		}
	}
	return viaJSON(t, params, meta)
}

// viaJSON sends meta with params through JSON and decodes it as the
// client does; a meta the client cannot read comes back zero.
func viaJSON(t *testing.T, params wire.ElicitParams, meta wire.RequestMeta) wire.RequestMeta {
	t.Helper()
	m, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	params.Meta = map[string]json.RawMessage{wire.MetaKey: m}
	frame, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	var p wire.ElicitParams
	if err := json.Unmarshal(frame, &p); err != nil {
		t.Fatal(err)
	}
	got, _ := p.RequestMeta()
	return got
}

// ask hands w a request as a bridge sends it.
func ask(t *testing.T, w *widget, ctx app.Context, id string, params wire.ElicitParams, meta wire.RequestMeta) {
	t.Helper()
	w.onRequest(ctx, id, params, bridged(t, params, meta))
}

// itemFor builds an item for a request as a bridge sends it.
func itemFor(t *testing.T, id string, seq int, params wire.ElicitParams, meta wire.RequestMeta) *item {
	t.Helper()
	return newItem(id, seq, params, bridged(t, params, meta), time.Now())
}

// The widget renders what the bridge made of a request, not the schema:
// a form in meta is shown even when the params carry no schema it could
// read, with its typed defaults and the sensitive-field warning.
func TestItemFromMeta(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	n := func(v float64) *float64 { return &v }
	meta := testMeta
	meta.Form = &elicit.Form{Fields: []elicit.Field{
		{Key: "code", Kind: elicit.KindString, Label: "Access code", Required: true},
		{Key: "guests", Kind: elicit.KindInteger, Label: "Guests", Minimum: n(0), Maximum: n(5), Default: 2.0},
		{Key: "tags", Kind: elicit.KindMultiSelect, Label: "Tags", Default: []string{"b"},
			Options: []elicit.Option{{Value: "a", Title: "A"}, {Value: "b", Title: "B"}}},
		{Key: "ok", Kind: elicit.KindBoolean, Label: "OK", Default: true},
	}}
	meta.Sensitive = []elicit.Sensitivity{{Field: "code", What: "one-time code", Reason: "Its title mentions a code."}}
	params := wire.ElicitParams{Message: "Who comes?", RequestedSchema: json.RawMessage(`{"not":"read by the widget"}`)}
	w.onRequest(ctx, "r1", params, viaJSON(t, params, meta))

	it := w.queue.find("r1")
	if it.Form == nil || len(it.Form.Fields) != 4 || it.Problem != "" {
		t.Fatalf("form %+v, problem %q", it.Form, it.Problem)
	}
	if got := it.Draft.Inputs; got["guests"][0] != "2" || got["tags"][0] != "b" || got["ok"][0] != "true" {
		t.Errorf("the defaults start as %v", got)
	}
	page := show(t, w, d)
	page.mustFind(t, "[data-field=code]")
	if got := page.mustFind(t, "[data-field=guests]").mustFind(t, "input").attrs["value"]; got != "2" {
		t.Errorf("guests starts at %q, want the default 2", got)
	}
	if warn := page.mustFind(t, "div[class=fb-warning]").textContent(); !strings.Contains(warn, "Access code") || !strings.Contains(warn, "one-time code") {
		t.Errorf("sensitive warning %q", warn)
	}

	// The answer is built from the form the bridge sent.
	it.Draft.set("code", "1234")
	(&requestCard{Item: it, Answer: w}).onAccept(ctx, app.Event{Value: app.Undefined()})
	got := c.sent["r1"]
	if got.Action != wire.ActionAccept || got.Content["code"] != "1234" || got.Content["guests"] != 2.0 || got.Content["ok"] != true {
		t.Errorf("sent %+v", got)
	}
	if tags, _ := got.Content["tags"].([]string); len(tags) != 1 || tags[0] != "b" {
		t.Errorf("tags sent as %#v", got.Content["tags"])
	}
}

// A request without the bridge's reading, or with one the widget cannot
// decode, still gets a card: it says the request cannot be shown and
// offers Decline and Skip, so the server hears back. Never a crash.
func TestItemWithoutReading(t *testing.T) {
	params := formParams(t, "Name?", shortSchema)
	for _, tt := range []struct {
		name string
		meta json.RawMessage // under _meta["formbridge/request"]; nil: absent
	}{
		{"no meta", nil},
		{"meta without a form", json.RawMessage(`{"requester":{"name":"srv"},"createdAt":"2026-12-02T10:00:00Z","expiresAt":"2026-12-02T10:10:00Z"}`)},
		{"form not an object", json.RawMessage(`{"requester":{"name":"srv"},"form":"name"}`)},
		{"field of an unknown kind", json.RawMessage(`{"requester":{"name":"srv"},"form":{"fields":[{"key":"a","kind":"colour","label":"A"}]}}`)},
		{"default of another kind", json.RawMessage(`{"requester":{"name":"srv"},"form":{"fields":[{"key":"a","kind":"number","label":"A","default":"x"}]}}`)},
		{"field without a key", json.RawMessage(`{"requester":{"name":"srv"},"form":{"fields":[{"kind":"string","label":"A"}]}}`)},
		{"sensitive not a list", json.RawMessage(`{"requester":{"name":"srv"},"form":{"fields":[]},"sensitive":{}}`)},
		{"meta not an object", json.RawMessage(`[1,2]`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, d, c := mountWidget(t)
			p := params
			if tt.meta != nil {
				p.Meta = map[string]json.RawMessage{wire.MetaKey: tt.meta}
			}
			meta, _ := p.RequestMeta()
			w.onRequest(d.Context(), "r1", p, meta)
			page := show(t, w, d)
			card := page.mustFind(t, "form[data-elicitation-id=r1]")
			if !strings.Contains(card.textContent(), "cannot be shown") {
				t.Errorf("card says %q", card.textContent())
			}
			if card.find("button[data-action=accept]") != nil || card.find("[data-field]") != nil {
				t.Error("a request the widget cannot read offers a form")
			}
			card.mustFind(t, "button[data-action=decline]")
			card.mustFind(t, "button[data-action=cancel]")
			(&requestCard{Item: w.queue.find("r1"), Answer: w}).onDecline(d.Context(), app.Event{Value: app.Undefined()})
			if c.sent["r1"].Action != wire.ActionDecline {
				t.Errorf("Decline sent %+v", c.sent["r1"])
			}
		})
	}
}

// A link is opened only as the bridge checked it, for this very URL,
// and only a web page: the widget refuses javascript: and the like even
// if a reading says otherwise.
func TestItemLinkFromMeta(t *testing.T) {
	const url = "https://login.example.com/auth"
	ok := &elicit.URLInfo{URL: url, Scheme: "https", Host: "login.example.com", Domain: "example.com"}
	for _, tt := range []struct {
		name string
		url  string
		link *elicit.URLInfo
		open bool
	}{
		{"checked", url, ok, true},
		{"upper-case scheme", "HTTPS://login.example.com/auth", &elicit.URLInfo{URL: "HTTPS://login.example.com/auth", Scheme: "https", Host: "login.example.com", Domain: "example.com"}, true},
		{"local http, flagged", "http://localhost:8080/cb", &elicit.URLInfo{URL: "http://localhost:8080/cb", Scheme: "http", Host: "localhost", Domain: "localhost",
			Warnings: []elicit.URLWarning{{Code: "http", Message: "The link is not encrypted (http); it goes to this computer"}}}, true},
		{"no reading", url, nil, false},
		{"reading of another link", "https://evil.example/", ok, false},
		{"http, not flagged", "http://login.example.com/", &elicit.URLInfo{URL: "http://login.example.com/", Scheme: "http", Host: "login.example.com", Domain: "example.com"}, false},
		{"script", "javascript:alert(1)", &elicit.URLInfo{URL: "javascript:alert(1)", Scheme: "https", Host: "x", Domain: "x"}, false},
		{"data", "data:text/html,<b>x</b>", &elicit.URLInfo{URL: "data:text/html,<b>x</b>", Scheme: "https", Host: "x", Domain: "x"}, false},
		{"no host", "https://", &elicit.URLInfo{URL: "https://", Scheme: "https"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, d, _ := mountWidget(t)
			params := wire.ElicitParams{Mode: "url", Message: "Sign in", ElicitationID: "e1", URL: tt.url}
			meta := testMeta
			meta.Link = tt.link
			w.onRequest(d.Context(), "u1", params, viaJSON(t, params, meta))
			page := show(t, w, d)
			card := page.mustFind(t, "form[data-elicitation-id=u1]")
			if got := card.find("button[data-action=open]") != nil; got != tt.open {
				t.Fatalf("Open offered: %v, want %v (%q)", got, tt.open, card.textContent())
			}
			if !tt.open {
				if !strings.Contains(card.textContent(), "cannot be opened safely") {
					t.Errorf("card says %q", card.textContent())
				}
				if card.find("[data-url]") != nil {
					t.Error("a refused link is shown as an address")
				}
				card.mustFind(t, "button[data-action=decline]")
				card.mustFind(t, "button[data-action=cancel]")
			}
		})
	}
}

// A request whose asker gave no name is from "A connected app": words a
// person reads, never a transport's name like "HTTP API".
// A name of only spaces is no name either.
func TestItemWithoutRequester(t *testing.T) {
	for _, who := range []wire.Implementation{{}, {Name: "bot", Title: "  "}} {
		w, d, _ := mountWidget(t)
		meta := testMeta
		meta.Requester = who
		ask(t, w, d.Context(), "r1", wire.ElicitParams{Message: "Go on?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}, meta)
		if text := show(t, w, d).textContent(); !strings.Contains(text, "A connected app") {
			t.Errorf("from %+v the page reads %q; want the request from A connected app", who, text)
		}
	}
}

// The queue's summary of a request is its message's first line, up to
// 80 characters: a longer one is cut to 79 and an ellipsis.
func TestItemSummary(t *testing.T) {
	long := strings.Repeat("é", 80)
	for msg, want := range map[string]string{
		"  Deploy?\r\nTo production": "Deploy?",
		"Deploy? \rTo production":    "Deploy?",
		long:                         long,
		long + "x":                   strings.Repeat("é", 79) + "…",
		" \n":                        "A question for you",
	} {
		it := &item{Params: wire.ElicitParams{Message: msg}}
		if got := it.Summary(); got != want {
			t.Errorf("Summary of %q = %q, want %q", msg, got, want)
		}
	}
}

// A server's name in a notification's plain text is isolated, and an
// isolate of its own cannot end that early.
func TestIsolatedName(t *testing.T) {
	for name, want := range map[string]string{
		"Travel Desk":         "\u2068Travel Desk\u2069",
		"מערכת\u2069 אישורים": "\u2068מערכת אישורים\u2069",
		"\u2067x\u2066":       "\u2068x\u2069",
	} {
		if got := isolated(name); got != want {
			t.Errorf("isolated(%q) = %q; want %q", name, got, want)
		}
	}
}
