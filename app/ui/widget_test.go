package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/client"
	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/embed"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// fakeConn records answers sent to the bridge.
type fakeConn struct {
	sent    map[string]wire.ElicitResult
	offline bool
	err     error // Respond's error, when set
}

func (c *fakeConn) Respond(id string, res wire.ElicitResult) error {
	if c.offline {
		return errors.New("offline")
	}
	if c.err != nil {
		return c.err
	}
	if c.sent == nil {
		c.sent = map[string]wire.ElicitResult{}
	}
	c.sent[id] = res
	return nil
}

func mountWidget(t *testing.T) (*widget, app.ClientDispatcher, *fakeConn) {
	t.Helper()
	useTestStorage(t)
	w := &widget{}
	d := app.NewClientTester(w)
	t.Cleanup(d.Close)
	c := &fakeConn{}
	w.conn = c
	return w, d, c
}

func show(t *testing.T, w *widget, d app.ClientDispatcher) *node {
	t.Helper()
	rerender(w, d)
	return render(t, w)
}

func metaAt(minute int) wire.RequestMeta {
	m := testMeta
	m.CreatedAt = m.CreatedAt.Add(time.Duration(minute) * time.Minute)
	m.ExpiresAt = m.CreatedAt.Add(10 * time.Minute)
	return m
}

const shortSchema = `{"type":"object","properties":{"name":{"type":"string","maxLength":20}},"required":["name"]}`

func TestWidgetEmptyState(t *testing.T) {
	w, d, _ := mountWidget(t)
	page := show(t, w, d)
	root := page.mustFind(t, "div[class=fb-widget]")
	if root.attrs["data-connection"] != "connecting" {
		t.Errorf("data-connection=%q before any event", root.attrs["data-connection"])
	}
	// Not "nothing to answer" until the bridge has said so.
	if got := page.textContent(); !strings.Contains(got, "Looking for requests") || strings.Contains(got, "Nothing to answer") {
		t.Errorf("while connecting the page reads %q", got)
	}
	// Online, before the requests hello announced have come.
	w.onConnectionChange(connOnline)
	page = show(t, w, d)
	if got := page.textContent(); strings.Contains(got, "Nothing to answer") {
		t.Errorf("before the bridge's requests have come the page reads %q", got)
	}
	w.onSynced(d.Context(), nil)
	page = show(t, w, d)
	if !strings.Contains(page.textContent(), "Nothing to answer right now") {
		t.Errorf("empty state missing: %q", page.textContent())
	}
	if page.mustFind(t, "div[class=fb-widget]").attrs["data-connection"] != "online" {
		t.Error("data-connection does not follow the connection")
	}
	if !strings.Contains(page.mustFind(t, "p[class=fb-conn]").textContent(), "Connected") {
		t.Error("the connection state is not said in words")
	}
	w.onConnectionChange(connOffline)
	if got := show(t, w, d).textContent(); !strings.Contains(got, "Cannot check for requests") {
		t.Errorf("offline the page reads %q", got)
	}
	// Each retry is not news: the page stays offline until it is back.
	w.onConnectionChange(connConnecting)
	page = show(t, w, d)
	if got := page.mustFind(t, "div[class=fb-widget]").attrs["data-connection"]; got != "offline" {
		t.Errorf("a retry while offline reads data-connection=%q", got)
	}
	w.onConnectionChange(connOnline)
	if got := show(t, w, d).mustFind(t, "div[class=fb-widget]").attrs["data-connection"]; got != "online" {
		t.Errorf("back online reads data-connection=%q", got)
	}
}

func TestWidgetNoLink(t *testing.T) {
	w, d, _ := mountWidget(t)
	w.noLink = true
	w.state = connOffline
	page := show(t, w, d)
	if !strings.Contains(page.textContent(), "no access key") {
		t.Errorf("no message for a link without a token: %q", page.textContent())
	}

	// In another app's page the person was sent no link: none is named.
	embedded = true
	t.Cleanup(func() { embedded = false })
	if got := show(t, w, d).textContent(); !strings.Contains(got, "This app did not pass on your access") || strings.Contains(got, "link") {
		t.Errorf("embedded without a token the widget reads %q", got)
	}
}

func TestWidgetQueue(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "late", formParams(t, "Second question", shortSchema), metaAt(5))
	ask(t, w, ctx, "early", formParams(t, "First question\nwith details", shortSchema), metaAt(0))
	ask(t, w, ctx, "late", formParams(t, "Second question", shortSchema), metaAt(5)) // repeated after a reconnect

	page := show(t, w, d)
	if got := len(page.findAll("form")); got != 1 {
		t.Fatalf("%d forms shown, want the one open request", got)
	}
	page.mustFind(t, "form[data-elicitation-id=late]") // the first to arrive stays open
	list := page.mustFind(t, "nav")
	if !strings.Contains(list.textContent(), "2 requests waiting") {
		t.Errorf("queue heading: %q", list.textContent())
	}
	items := list.findAll("button")
	if len(items) != 2 || items[0].attrs["data-request-id"] != "early" || items[1].attrs["data-request-id"] != "late" {
		t.Fatalf("queue is not oldest first: %v", items)
	}
	if !strings.Contains(items[0].textContent(), "First question") || strings.Contains(items[0].textContent(), "with details") {
		t.Errorf("queue line shows %q, want the message's first line", items[0].textContent())
	}
	if items[1].attrs["aria-current"] != "true" {
		t.Error("the open request is not marked current")
	}

	w.selectRequest("early")
	page = show(t, w, d)
	page.mustFind(t, "form[data-elicitation-id=early]")

	// Another window answered: it leaves with a reason, the next opens.
	w.onSettled(ctx, &wire.SettledParams{RequestID: "early", Outcome: wire.OutcomeAnsweredElsewhere})
	page = show(t, w, d)
	if page.find("nav") != nil {
		t.Error("the list stays with one request left")
	}
	page.mustFind(t, "form[data-elicitation-id=late]")
	n := page.mustFind(t, "[data-outcome=answered-elsewhere]")
	if !strings.Contains(n.textContent(), "another window") {
		t.Errorf("notice reads %q", n.textContent())
	}
}

func TestWidgetAnswerAndOutcomes(t *testing.T) {
	for _, tt := range []struct {
		action, outcome, says string
	}{
		{"accept", wire.OutcomeAnswered, "Sent to Deploy Bot."},
		{"decline", wire.OutcomeAnswered, "You declined."},
		{"cancel", wire.OutcomeAnswered, "Skipped. Deploy Bot was told you did not answer."},
		{"", wire.OutcomeExpired, "expired before it was answered"},
		{"", wire.OutcomeCancelled, "This request from Deploy Bot was called off before you answered."},
	} {
		t.Run(tt.action+tt.outcome, func(t *testing.T) {
			w, d, c := mountWidget(t)
			ctx := d.Context()
			ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
			it := w.queue.find("r1")
			store(draftKey("r1"), it.Draft)
			if tt.action != "" {
				w.answer(it, wire.ElicitResult{Action: tt.action})
				if c.sent["r1"].Action != tt.action {
					t.Fatalf("bridge got %+v", c.sent["r1"])
				}
			}
			w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: tt.outcome})
			page := show(t, w, d)
			if page.find("form") != nil {
				t.Error("a settled request is still shown")
			}
			n := page.mustFind(t, "[data-outcome="+tt.outcome+"]")
			if !strings.Contains(n.textContent(), tt.says) {
				t.Errorf("notice %q, want %q", n.textContent(), tt.says)
			}
			var left draft
			loadStored(draftKey("r1"), &left)
			if left.Inputs != nil {
				t.Error("the draft stays in session storage after the request settled")
			}
		})
	}
}

func TestWidgetOfflineAnswerStays(t *testing.T) {
	w, d, c := mountWidget(t)
	c.offline = true
	ask(t, w, d.Context(), "r1", formParams(t, "Name?", shortSchema), testMeta)
	it := w.queue.find("r1")
	w.answer(it, wire.ElicitResult{Action: "decline"})
	if it.Draft.Sent != "" || it.Draft.SendError == "" {
		t.Fatalf("offline answer: sent=%q error=%q", it.Draft.Sent, it.Draft.SendError)
	}
	page := show(t, w, d)
	page.mustFind(t, "form[data-elicitation-id=r1]")
}

// An answer too large for the bridge is not sent, and the person is told
// what to do, not that they are offline.
func TestWidgetAnswerTooLarge(t *testing.T) {
	w, d, c := mountWidget(t)
	c.err = client.ErrAnswerTooLarge
	ask(t, w, d.Context(), "r1", formParams(t, "Name?", shortSchema), testMeta)
	it := w.queue.find("r1")
	w.answer(it, wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "x"}})
	if it.Draft.Sent != "" || !strings.Contains(it.Draft.SendError, "too long to send") {
		t.Fatalf("answer too large: sent=%q error=%q", it.Draft.Sent, it.Draft.SendError)
	}
	page := show(t, w, d)
	if got := page.mustFind(t, "form[data-elicitation-id=r1]").textContent(); !strings.Contains(got, "Shorten the longest one") {
		t.Errorf("the form reads %q; want it to say to shorten the longest answer", got)
	}
}

func TestWidgetRejected(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "x"}})
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeRejected,
		Errors: []elicit.FieldError{{Field: "name", Code: "pattern", Message: "Use your full name"}}})
	page := show(t, w, d)
	f := page.mustFind(t, "[data-field=name]")
	if !strings.Contains(f.textContent(), "Use your full name") {
		t.Errorf("rejection not shown: %q", f.textContent())
	}
	if page.mustFind(t, "button[data-action=accept]").on("disabled") {
		t.Error("Send stays disabled after a rejection")
	}
}

func TestWidgetDraftSurvivesReload(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	saved := &draft{}
	saved.set("name", "typed before reload")
	store(draftKey("r1"), saved)
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	page := show(t, w, d)
	if got := page.mustFind(t, "[data-field=name]").mustFind(t, "input").attrs["value"]; got != "typed before reload" {
		t.Errorf("restored value = %q", got)
	}
}

func TestWidgetResyncAfterReconnect(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "kept", formParams(t, "A", shortSchema), metaAt(0))
	ask(t, w, ctx, "gone", formParams(t, "B", shortSchema), metaAt(1))
	w.queue.find("kept").Draft.set("name", "half typed")

	// The bridge sends again what it still holds, then the client says
	// the backlog is over; "gone" was not among it.
	w.onHello(ctx, &wire.HelloResult{Pending: 1})
	ask(t, w, ctx, "kept", formParams(t, "A", shortSchema), metaAt(0))
	if w.queue.len() != 2 {
		t.Fatalf("a request was withdrawn before the backlog was over: %d items", w.queue.len())
	}
	w.onSynced(ctx, []string{"kept"})
	ask(t, w, ctx, "new", formParams(t, "C", shortSchema), metaAt(2))

	if w.queue.len() != 2 || w.queue.find("kept") == nil || w.queue.find("new") == nil {
		t.Fatalf("queue after resync: %d items", w.queue.len())
	}
	if got := w.queue.find("kept").Draft.value("name"); got != "half typed" {
		t.Errorf("typed value lost across the reconnect: %q", got)
	}
	page := show(t, w, d)
	page.mustFind(t, "[data-outcome=gone]")
}

// TestWidgetResyncNothingPending: a bridge that restarted holds nothing;
// every form kept from before is withdrawn with a notice.
func TestWidgetResyncNothingPending(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "a", formParams(t, "A", shortSchema), metaAt(0))
	ask(t, w, ctx, "b", formParams(t, "B", shortSchema), metaAt(1))
	w.onHello(ctx, &wire.HelloResult{Pending: 0})
	w.onSynced(ctx, nil)
	page := show(t, w, d)
	if page.find("form[data-elicitation-id]") != nil || len(page.findAll("[data-outcome=gone]")) != 2 {
		t.Fatalf("after a resync with nothing pending the page shows %q", page.textContent())
	}
}

// TestWidgetAnswerGone: the bridge answers -32003 (it no longer holds the
// request): the form leaves, saying the answer was not delivered, and the
// settled notice that follows changes nothing.
func TestWidgetAnswerGone(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: "decline"})
	w.onGone(ctx, "r1")
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: "unknown"})
	page := show(t, w, d)
	if page.find("form[data-elicitation-id=r1]") != nil {
		t.Fatal("the stale form is still shown")
	}
	notes := page.findAll("[data-outcome=gone]")
	if len(notes) != 1 || !strings.Contains(notes[0].textContent(), "not delivered") {
		t.Fatalf("notices: %d, page %q", len(notes), page.textContent())
	}
}

// While an answer is being sent the fields cannot change: the answer a
// reconnect sends again is the one the person sent, and the screen never
// shows another (a review found an edit made then lost behind "Sent").
func TestWidgetFieldsLockedWhileSending(t *testing.T) {
	w, d, _ := mountWidget(t)
	ask(t, w, d.Context(), "r1", formParams(t, "Name?", shortSchema), testMeta)
	if show(t, w, d).mustFind(t, "fieldset[class=fb-lock]").on("disabled") {
		t.Fatal("the fields are disabled before anything was sent")
	}
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Jon"}})
	if !show(t, w, d).mustFind(t, "fieldset[class=fb-lock]").on("disabled") {
		t.Error("the fields can still be changed while the answer is sent")
	}
}

// TestWidgetAnswerRefused: the bridge answers an answer with an error
// other than -32003. It did not take it: the form leaves "Sending…" with
// its buttons back and says so (a review found it stuck for good).
func TestWidgetAnswerRefused(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: "decline"})
	w.onClientEvent(ctx, client.Event{AnswerRefused: "r1"})
	page := show(t, w, d)
	form := page.mustFind(t, "form[data-elicitation-id=r1]")
	if !strings.Contains(form.textContent(), "did not accept your reply") {
		t.Errorf("the form reads %q; want it to say the reply was not accepted", form.textContent())
	}
	for _, a := range []string{"accept", "decline", "cancel"} {
		if form.mustFind(t, "button[data-action="+a+"]").on("disabled") {
			t.Errorf("%s stays disabled", a)
		}
	}
	if form.mustFind(t, "fieldset[class=fb-lock]").on("disabled") {
		t.Error("the fields stay disabled")
	}
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: "cancel"})
	if c.sent["r1"].Action != "cancel" {
		t.Errorf("sent %+v after choosing Skip; want the cancel", c.sent["r1"])
	}
}

// A request the bridge sends again while its answer still cannot go
// leaves "Sending…", so the person can press Send again.
func TestWidgetResendFailsReopensForm(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "x"}})
	c.offline = true
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	if it := w.queue.find("r1"); it.Draft.Sent != "" || it.Draft.SendError == "" {
		t.Errorf("sent %q, error %q; want the form open again, saying why", it.Draft.Sent, it.Draft.SendError)
	}
}

// An answer the bridge rejected does not go again when the request comes
// again after a reconnect: the person is correcting it.
func TestWidgetRejectedAnswerNotResent(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "x"}})
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeRejected,
		Errors: []elicit.FieldError{{Field: "name", Code: "pattern", Message: "Use your full name"}}})
	clear(c.sent)
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.onSynced(ctx, []string{"r1"})
	if got, ok := c.sent["r1"]; ok {
		t.Errorf("the rejected answer went again: %+v", got)
	}
}

// When the open request leaves, the one after it opens: the person's
// place in the list is kept.
func TestWidgetNextOpensAfterSettle(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	for i, id := range []string{"r1", "r2", "r3"} {
		ask(t, w, ctx, id, formParams(t, "Q"+id, shortSchema), metaAt(i))
	}
	w.selectRequest("r2")
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r2", Outcome: wire.OutcomeExpired})
	if got := show(t, w, d).mustFind(t, "form").attrs["data-elicitation-id"]; got != "r3" {
		t.Errorf("after the open request left, %q is open; want r3, the next", got)
	}
}

// An answer sent again after a drop that then draws -32003 may have
// arrived the first time (the bridge settled it, then restarted): the
// notice says there is no telling, never that it was not delivered (a
// review found it overclaimed).
func TestWidgetResentAnswerGone(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "x"}})
	w.onSynced(ctx, nil) // a restarted bridge holds nothing: the answer goes again
	w.onGone(ctx, "r1")  // and draws -32003
	n := show(t, w, d).mustFind(t, "[data-outcome=gone]").textContent()
	if strings.Contains(n, "not delivered") || !strings.Contains(n, "no telling whether your answer arrived") {
		t.Errorf("notice %q; want it to say the answer may have arrived or not", n)
	}
}

func TestWidgetURLMode(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	params := wire.ElicitParams{Mode: "url", Message: "Sign in to continue", ElicitationID: "e1", URL: "https://login.example.com/auth?x=1"}
	ask(t, w, ctx, "u1", params, testMeta)
	page := show(t, w, d)
	card := page.mustFind(t, "form[data-elicitation-id=u1]")
	u := card.mustFind(t, "[data-url]")
	if u.attrs["data-url"] != params.URL || u.textContent() != params.URL {
		t.Errorf("data-url=%q text=%q, want the full URL", u.attrs["data-url"], u.textContent())
	}
	if got := u.mustFind(t, "strong").textContent(); got != "example.com" {
		t.Errorf("highlighted %q, want the domain", got)
	}
	if card.find("a") != nil {
		t.Error("the URL became a link")
	}
	card.mustFind(t, "button[data-action=open]")
	if len(c.sent) != 0 {
		t.Fatal("answered before the person clicked")
	}

	// Offline, Open opens nothing and sends nothing, and says so.
	uc := &requestCard{Item: w.queue.find("u1"), Answer: w}
	uc.onOpen(ctx, app.Event{Value: app.Undefined()})
	if len(c.sent) != 0 || w.queue.find("u1").Draft.Opened || !strings.Contains(w.queue.find("u1").Draft.SendError, "link was not opened") {
		t.Fatalf("Open while connecting: sent %+v, draft %+v", c.sent, w.queue.find("u1").Draft)
	}

	// Click Open online: accept is sent, then the card waits for the other tab.
	w.onConnectionChange(connOnline)
	uc.onOpen(ctx, app.Event{Value: app.Undefined()})
	if c.sent["u1"].Action != "accept" {
		t.Fatalf("open sent %+v, want accept", c.sent["u1"])
	}
	w.onSettled(ctx, &wire.SettledParams{RequestID: "u1", Outcome: wire.OutcomeAnswered})
	page = show(t, w, d)
	n := page.mustFind(t, "[data-outcome=waiting]")
	if !strings.Contains(n.textContent(), "Waiting for you to finish in the other tab") {
		t.Errorf("waiting notice: %q", n.textContent())
	}
	n.mustFind(t, "button[data-action=done]")

	w.onComplete(&wire.CompleteParams{ElicitationID: "other"}) // unknown: ignored
	page = show(t, w, d)
	page.mustFind(t, "[data-outcome=waiting]")
	w.onComplete(&wire.CompleteParams{ElicitationID: "e1"})
	page = show(t, w, d)
	page.mustFind(t, "[data-outcome=completed]")
	said := w.arrival
	w.onComplete(&wire.CompleteParams{ElicitationID: "e1"}) // finished: ignored, not said again
	if w.arrival != said {
		t.Errorf("a second complete for a finished link was said again: %q", w.arrival)
	}
}

func TestWidgetURLRefused(t *testing.T) {
	w, d, _ := mountWidget(t)
	ask(t, w, d.Context(), "u1", wire.ElicitParams{Mode: "url", Message: "Go", ElicitationID: "e1", URL: "javascript:alert(1)"}, testMeta)
	page := show(t, w, d)
	card := page.mustFind(t, "form[data-elicitation-id=u1]")
	if card.find("button[data-action=open]") != nil {
		t.Error("a refused link can still be opened")
	}
	card.mustFind(t, "button[data-action=decline]")
	card.mustFind(t, "button[data-action=cancel]")
	if !strings.Contains(card.textContent(), "cannot be opened safely") {
		t.Errorf("no reason shown: %q", card.textContent())
	}
}

func TestWidgetURLWarnings(t *testing.T) {
	w, d, _ := mountWidget(t)
	ask(t, w, d.Context(), "u1", wire.ElicitParams{Mode: "url", Message: "Go", ElicitationID: "e1", URL: "https://user@192.168.0.1:8080/x"}, testMeta)
	page := show(t, w, d)
	ws := page.findAll("li[data-warning]")
	if len(ws) < 2 {
		t.Fatalf("%d warnings for an IP URL with user@ and a port", len(ws))
	}
	if got := page.mustFind(t, "[data-url]").mustFind(t, "strong").textContent(); got != "192.168.0.1" {
		t.Errorf("highlighted host %q", got)
	}
}

// The tab opened, but the answer could not go (the connection dropped
// just then): the accept is kept and goes when the bridge sends the
// request again, without a second Open.
func TestWidgetURLAcceptKeptWhenSendFails(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	c.offline = true
	it, params := openSignIn(t, w, ctx)
	if !it.Draft.Opened || it.Draft.Sent != wire.ActionAccept || !strings.Contains(it.Draft.SendError, "will be told") {
		t.Fatalf("after a failed send the draft is %+v; want it opened, the accept kept, and the person told", it.Draft)
	}
	if page := show(t, w, d); page.find("button[data-action=open]") != nil {
		t.Error("Open offered again for a tab already open")
	}
	c.offline = false
	w.onHello(ctx, &wire.HelloResult{Pending: 1})
	ask(t, w, ctx, "u1", params, testMeta)
	if got := c.sent["u1"]; got.Action != wire.ActionAccept {
		t.Errorf("once the request came again the bridge got %+v, want the accept", got)
	}
	if it.Draft.SendError != "" {
		t.Errorf("still says %q after the accept went", it.Draft.SendError)
	}
}

// openSignIn shows a sign-in link as request u1 on an online widget and
// presses Open link; it returns the request and its params.
func openSignIn(t *testing.T, w *widget, ctx app.Context) (*item, wire.ElicitParams) {
	t.Helper()
	params := wire.ElicitParams{Mode: "url", Message: "Sign in", ElicitationID: "e1", URL: "https://login.example.com/"}
	ask(t, w, ctx, "u1", params, testMeta)
	w.onConnectionChange(connOnline)
	it := w.queue.find("u1")
	(&requestCard{Item: it, Answer: w}).onOpen(ctx, app.Event{Value: app.Undefined()})
	return it, params
}

func TestWidgetURLResentAfterLostAccept(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	_, params := openSignIn(t, w, ctx)
	page := show(t, w, d)
	if page.find("button[data-action=open]") != nil {
		t.Fatal("Open still offered after it was clicked")
	}
	// The connection dropped before the accept arrived: the bridge
	// sends the request again, and the accept goes again by itself (the
	// link is open in the other tab already).
	clear(c.sent)
	w.onHello(ctx, &wire.HelloResult{Pending: 1})
	ask(t, w, ctx, "u1", params, testMeta)
	w.onSynced(ctx, []string{"u1"})
	if got := c.sent["u1"]; got.Action != wire.ActionAccept {
		t.Errorf("after the request came again the bridge got %+v, want the accept again", got)
	}
	if show(t, w, d).find("button[data-action=open]") != nil {
		t.Error("Open offered again: a second tab for the same sign-in")
	}
}

// When the lost accept of an opened link cannot go again (offline once
// more), Open is offered again: the person's way to send it.
func TestWidgetURLOpenOfferedWhenResendFails(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	_, params := openSignIn(t, w, ctx)
	c.offline = true
	ask(t, w, ctx, "u1", params, testMeta)
	show(t, w, d).mustFind(t, "button[data-action=open]")
}

func TestWidgetRootMatch(t *testing.T) {
	w, d, _ := mountWidget(t)
	w.onConnectionChange(connOffline)
	rerender(w, d)
	// The root carries the connection hook; its first child is the bar.
	if err := app.TestMatch(w, app.TestUIDescriptor{
		Path:     app.TestPath(0),
		Expected: app.Div().Class("fb-widget").DataSet("connection", "offline"),
	}); err != nil {
		t.Error(err)
	}
	if err := app.TestMatch(w, app.TestUIDescriptor{
		Path:     app.TestPath(0, 0, 1, 1),
		Expected: app.Text("Offline, trying again…"),
	}); err != nil {
		t.Error(err)
	}
}

// TestWidgetURLBidiRefused: a link with a direction override (which
// would show "…exe.pdf" for "…\u202Efdp.exe") cannot be opened: the bridge
// refuses it (server/e2e TestURLHiddenCharactersRefused), and a widget
// sent one anyway, without the bridge's reading, refuses it in plain
// words and never renders the override itself.
func TestWidgetURLBidiRefused(t *testing.T) {
	w, d, _ := mountWidget(t)
	raw := "https://example.com/invoice\u202Efdp.exe"
	ask(t, w, d.Context(), "u1", wire.ElicitParams{Mode: "url", Message: "Open", ElicitationID: "e1", URL: raw}, testMeta)
	page := show(t, w, d)
	card := page.mustFind(t, "form[data-elicitation-id]")
	if card.find("button[data-action=open]") != nil {
		t.Error("a link with a direction override can be opened")
	}
	card.mustFind(t, "button[data-action=decline]")
	if txt := card.textContent(); !strings.Contains(txt, "cannot be opened safely") || strings.ContainsRune(txt, 0x202E) {
		t.Errorf("card text %q", txt)
	}
}

// TestWidgetURLLookalike: a Cyrillic "аpple.com" is never the bold,
// highlighted name on the card: the warning comes first, and the name is
// given in its plain spelling, which cannot imitate another.
func TestWidgetURLLookalike(t *testing.T) {
	w, d, _ := mountWidget(t)
	ask(t, w, d.Context(), "u1", wire.ElicitParams{Mode: "url", Message: "Sign in", ElicitationID: "e1", URL: "https://\u0430pple.com/login"}, testMeta)
	page := show(t, w, d)
	body := page.mustFind(t, "div[class=fb-url-body]")
	if len(body.kids) == 0 || body.kids[0].attrs["class"] != "fb-warning fb-warning-strong" {
		t.Fatalf("the look-alike warning is not first: %q", body.textContent())
	}
	for _, st := range body.findAll("strong") {
		if strings.Contains(st.textContent(), "\u0430pple") {
			t.Errorf("the look-alike name is in bold: %q", st.textContent())
		}
	}
	if got := body.mustFind(t, "p[class=fb-site]").mustFind(t, "strong").textContent(); got != "xn--pple-43d.com" {
		t.Errorf("plain spelling %q, want xn--pple-43d.com", got)
	}
	if body.find("[class=fb-domain]") != nil {
		t.Error("the look-alike name is highlighted in the address")
	}
	if n := len(body.findAll("li[data-warning]")); n != 2 {
		t.Errorf("%d warnings, want mixed_script and punycode", n)
	}
}

func TestNoticeDismiss(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeExpired})
	page := show(t, w, d)
	page.mustFind(t, "[data-outcome=expired]").mustFind(t, "button[data-action=dismiss]")
	w.onNoticeDismiss("r1")(ctx, app.Event{Value: app.Undefined()})
	page = show(t, w, d)
	if page.find("[data-outcome]") != nil {
		t.Error("the notice stays after OK")
	}
}

// Old notices make way for new ones, so they never push the open request
// far down.
func TestNoticesBounded(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	for _, id := range []string{"r1", "r2", "r3", "r4", "r5"} {
		ask(t, w, ctx, id, formParams(t, "Name?", shortSchema), testMeta)
		w.onSettled(ctx, &wire.SettledParams{RequestID: id, Outcome: wire.OutcomeExpired})
	}
	var shown []string
	for _, n := range show(t, w, d).findAll("[data-outcome=expired]") {
		shown = append(shown, n.attrs["data-request-id"])
	}
	if want := []string{"r5", "r4", "r3"}; !slices.Equal(shown, want) {
		t.Errorf("notices shown for %q; want the newest three, %q", shown, want)
	}
}

// Notices waiting for a link's other tab stay besides the newest, up to
// twice maxNotices in all, and a request's new notice replaces its old.
func TestAddNoticeKeepsWaitingOnesOnce(t *testing.T) {
	w := &widget{}
	for _, id := range []string{"w1", "w2", "w3", "w4", "w5", "w6", "w7"} {
		w.addNotice(notice{RequestID: id, Outcome: outcomeWaiting})
	}
	w.addNotice(notice{RequestID: "w5", Outcome: wire.OutcomeExpired})
	var ids []string
	for _, n := range w.notices {
		ids = append(ids, n.RequestID)
	}
	if want := []string{"w5", "w7", "w6", "w4", "w3", "w2"}; !slices.Equal(ids, want) {
		t.Errorf("notices for %q; want %q", ids, want)
	}
}

// The one-second tick re-renders only when a clock on screen changes.
func TestWidgetClockFace(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	if w.clockFace(time.Now()) != w.clockFace(time.Now().Add(time.Hour)) {
		t.Error("an empty widget has a clock")
	}
	m := metaAt(0) // expires 10 minutes after it was created
	ask(t, w, ctx, "r1", formParams(t, "Question", shortSchema), m)
	created := m.CreatedAt
	if w.clockFace(created.Add(10*time.Second)) != w.clockFace(created.Add(11*time.Second)) {
		t.Error("a second's tick re-renders while no clock reads differently")
	}
	if w.clockFace(created.Add(59*time.Second)) == w.clockFace(created.Add(61*time.Second)) {
		t.Error(`"just now" turning into "1 minute ago" does not re-render`)
	}
	if w.clockFace(created.Add(6*time.Minute+10*time.Second)) != w.clockFace(created.Add(6*time.Minute+11*time.Second)) {
		t.Error("a countdown in minutes re-renders each second")
	}
	if w.clockFace(created.Add(5*time.Minute+59*time.Second)) == w.clockFace(created.Add(6*time.Minute+time.Second)) {
		t.Error("the countdown's minutes do not re-render")
	}
	if w.clockFace(created.Add(9*time.Minute+10*time.Second)) == w.clockFace(created.Add(9*time.Minute+11*time.Second)) {
		t.Error("the countdown's seconds in its last minute do not re-render")
	}
}

// An answer lost with the connection goes again by itself: when the
// bridge sends its request again (it never arrived), and when the
// request is missing from the resync (it may have settled by that very
// answer, and the bridge's reply to the same answer again says so).
func TestWidgetAnswerLostWithConnection(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "held", formParams(t, "A", shortSchema), metaAt(0))
	ask(t, w, ctx, "settled", formParams(t, "B", shortSchema), metaAt(1))
	ask(t, w, ctx, "lost", formParams(t, "C", shortSchema), metaAt(2))
	for _, id := range []string{"held", "settled"} {
		w.answer(w.queue.find(id), wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": id}})
	}

	clear(c.sent)
	w.onHello(ctx, &wire.HelloResult{Pending: 1})
	ask(t, w, ctx, "held", formParams(t, "A", shortSchema), metaAt(0))
	w.onSynced(ctx, []string{"held"})
	for _, id := range []string{"held", "settled"} {
		if got := c.sent[id]; got.Action != wire.ActionAccept || got.Content["name"] != id {
			t.Errorf("%s: the bridge got %+v after the reconnect, want the answer again", id, got)
		}
		if it := w.queue.find(id); it == nil || it.Draft.Sent == "" {
			t.Errorf("%s: not kept as being sent", id)
		}
	}
	if _, ok := c.sent["lost"]; ok || w.queue.find("lost") != nil {
		t.Error("an unanswered request missing from the resync was answered or kept")
	}
	// The bridge's reply to the answer sent again.
	w.onSettled(ctx, &wire.SettledParams{RequestID: "settled", Outcome: wire.OutcomeAnswered})
	page := show(t, w, d)
	if got := page.mustFind(t, "[data-request-id=settled]").textContent(); !strings.Contains(got, "Sent to") {
		t.Errorf("the answer that had arrived reads %q", got)
	}

	// Offline when the resync comes: nothing can go, so the notice says
	// the answer may not have arrived.
	c.offline = true
	w.onSynced(ctx, nil)
	if got := show(t, w, d).mustFind(t, "[data-request-id=held]").textContent(); !strings.Contains(got, "may not have reached") {
		t.Errorf("offline, the answered request reads %q", got)
	}
}

// The offer of notifications says what happened when the browser refused
// them as the person asked; it never just disappears. A page that was
// refused on an earlier visit says nothing.
func TestWidgetNotificationsRefused(t *testing.T) {
	w, d, _ := mountWidget(t)
	w.permission = "default"
	if foot := show(t, w, d).find("footer"); foot == nil || !strings.Contains(foot.textContent(), "Tell me when a new request arrives") {
		t.Fatal("no offer of notifications")
	}
	w.permission, w.refusedNow = "denied", true // as onAskNotifications sets them
	if foot := show(t, w, d).find("footer"); foot == nil || !strings.Contains(foot.textContent(), "blocks notifications") {
		t.Errorf("after the refusal the footer reads %v", foot)
	}
	w.refusedNow = false
	if foot := show(t, w, d).find("footer"); foot != nil {
		t.Errorf("refused before this visit, the footer reads %q", foot.textContent())
	}
}

// A refused token stops the client for good: with a bridge on another
// origin (#bridge=, a static site, an embed) the watch's "still trying"
// must not replace the reason when the offline state follows the Fatal
// event, as the client sends them (a review found it did).
func TestFatalNotReplacedByWatch(t *testing.T) {
	for _, wasOnline := range []bool{false, true} {
		t.Run(fmt.Sprint("was online ", wasOnline), func(t *testing.T) {
			w, d, _ := mountWidget(t)
			ctx := d.Context()
			w.watch = embed.NewWatch("wss://bridge.example/ws")
			w.onClientEvent(ctx, client.Event{State: client.StateConnecting})
			if wasOnline {
				w.onClientEvent(ctx, client.Event{State: client.StateOnline})
				w.onClientEvent(ctx, client.Event{State: client.StateOffline})
				w.onClientEvent(ctx, client.Event{State: client.StateConnecting})
			}
			w.onClientEvent(ctx, client.Event{Fatal: fmt.Errorf("%w: unknown token", client.ErrUnauthorized)})
			w.onClientEvent(ctx, client.Event{State: client.StateOffline})
			if page := show(t, w, d).textContent(); !strings.Contains(page, "was not accepted") || strings.Contains(page, "trying") {
				t.Errorf("the page reads %q; want the refused token, and nothing about trying again", page)
			}
		})
	}
}

// TestSyncedKeepsOtherChannelsDrafts: frames of one origin in one tab
// share session storage; a widget on channel B, once synced, must not
// remove the drafts a widget on channel A kept there (a chat app that
// mounts the widget again for each conversation's channel).
func TestSyncedKeepsOtherChannelsDrafts(t *testing.T) {
	t.Cleanup(func() { (&widget{}).onHello(nil, &wire.HelloResult{}) }) // no channel after
	a, da, _ := mountWidget(t)
	stored := tabStorage.(mapStorage)
	ctx := da.Context()
	a.onHello(ctx, &wire.HelloResult{Channel: "conv-a", Pending: 1})
	ask(t, a, ctx, "a1", formParams(t, "A", shortSchema), metaAt(0))
	store(draftKey("a1"), draft{Inputs: map[string][]string{"name": {"half typed"}}})
	store(draftKey("a-gone"), draft{})
	a.onSynced(ctx, []string{"a1"})
	if _, ok := stored[draftKey("a-gone")]; ok {
		t.Errorf("a draft of a request channel A no longer holds stayed: %v", stored)
	}
	keyA := draftKey("a1")

	// The widget mounted again in the same tab, for conversation B.
	b, db, _ := mountWidget(t)
	tabStorage = stored // the same tab's storage
	b.onHello(db.Context(), &wire.HelloResult{Channel: "conv-b", Pending: 0})
	b.onSynced(db.Context(), nil)
	if _, ok := stored[keyA]; !ok {
		t.Errorf("channel B's Synced removed channel A's draft; storage holds %v", stored)
	}

	// A bridge whose hello names no channel keeps its drafts under the
	// bare prefix: the channels' drafts below it are not its own.
	c, dc, _ := mountWidget(t)
	tabStorage = stored
	c.onHello(dc.Context(), &wire.HelloResult{Pending: 0})
	c.onSynced(dc.Context(), nil)
	if _, ok := stored[keyA]; !ok {
		t.Errorf("Synced without a channel removed channel A's draft; storage holds %v", stored)
	}
}

// The open request's last 5 minutes, and its last one, are said once
// each as they begin, in the page's status region; not a request that
// waits behind it, and not at every tick.
func TestWidgetDeadlineSaid(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	m := metaAt(0) // expires 10 minutes after it was created
	ask(t, w, ctx, "r1", formParams(t, "Question", shortSchema), m)
	behind := metaAt(0)
	behind.ExpiresAt = behind.CreatedAt.Add(5*time.Minute + 30*time.Second)
	ask(t, w, ctx, "r2", formParams(t, "Behind", shortSchema), behind)
	if w.selected != "r1" {
		t.Fatalf("the open request is %q, want r1", w.selected)
	}
	created := m.CreatedAt
	w.arrival = ""
	steps := []struct {
		at   time.Duration
		want string
	}{
		{4*time.Minute + 29*time.Second, ""},
		{4*time.Minute + 31*time.Second, ""}, // r2's last minute begins: it is not the open one
		{4*time.Minute + 59*time.Second, ""},
		{5*time.Minute + 1*time.Second, "5 minutes left to answer this request."},
		{5*time.Minute + 2*time.Second, "5 minutes left to answer this request."},
		{8*time.Minute + 59*time.Second, "5 minutes left to answer this request."},
		{9*time.Minute + 1*time.Second, "1 minute left to answer this request."},
		{9*time.Minute + 30*time.Second, "1 minute left to answer this request."},
	}
	for _, s := range steps {
		if w.tick(ctx, created.Add(s.at)); w.arrival != s.want {
			t.Errorf("at %v the status region says %q, want %q", s.at, w.arrival, s.want)
		}
	}
	regions := show(t, w, d).all(func(n *node) bool { return strings.Contains(n.attrs["class"], "fb-arrival") })
	if len(regions) != 1 || regions[0].attrs["role"] != "status" || regions[0].textContent() != "1 minute left to answer this request." {
		t.Errorf("the page's status region is not there, or reads otherwise: %d of them", len(regions))
	}
	// A page that slept through both marks says the nearer one, as news
	// even in the words the region holds already.
	w.now = created.Add(4 * time.Minute)
	if w.tick(ctx, created.Add(9*time.Minute+10*time.Second)); w.arrival != "1 minute left to answer this request.\u00a0" {
		t.Errorf("after a sleep past both marks the status region says %q", w.arrival)
	}
}

// A card may still hold its request for a moment after it settled (go-app
// dismounts it in its next frame): a save then, such as the field the
// Send press left being marked once the pointer is up, must not write
// the draft back after settle removed it. What was typed would stay in
// the tab's storage until the tab closes.
func TestWidgetNoDraftSavedAfterSettle(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	it := w.queue.find("r1")
	card := &requestCard{Item: it, Answer: w}
	it.Draft.set("name", "Ada Lovelace")
	card.edited(ctx)
	w.answer(it, wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace"}})
	if c.sent["r1"].Action != "accept" {
		t.Fatalf("bridge got %+v", c.sent["r1"])
	}
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnswered})
	card.save()
	if raw, ok := tabStorage.(mapStorage)[draftKey("r1")]; ok {
		t.Errorf("after the request settled, the tab's storage keeps its draft: %s", raw)
	}
}

// The clock wakes only when a clock on screen would read differently
// (armTick), so it must know every such moment: stepping through three
// hours, each change of the clock face was foreseen, and nothing is
// foreseen with nothing to show.
func TestClockChangeMissesNothing(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	at := func(created, expires time.Duration) *item {
		it := &item{Received: t0}
		it.Meta.CreatedAt = t0.Add(created)
		if expires != 0 {
			it.Meta.ExpiresAt = t0.Add(expires)
		}
		return it
	}
	w := &widget{}
	if wait := untilClockChange(t0, nil); wait != 0 {
		t.Errorf("nothing waits, yet the clock wakes in %v", wait)
	}
	w.queue.items = []*item{
		at(0, 0),             // no expiry: "just now", minutes, hours
		at(-25*time.Hour, 0), // a date: never changes
		at(3*time.Second, 0), // a bridge clock a little ahead
		at(10*time.Minute, 17*time.Minute+250*time.Millisecond), // a countdown ending off the second
		at(time.Hour, time.Hour+4*time.Minute),                  // arrives inside its countdown's window
	}
	const step = 100 * time.Millisecond
	wakes := 0
	next := func(now time.Time) time.Time {
		if wait := untilClockChange(now, w.queue.items); wait > 0 {
			return now.Add(wait)
		}
		return time.Time{}
	}
	prev, due := t0, next(t0)
	for now := t0.Add(step); now.Before(t0.Add(3 * time.Hour)); now = now.Add(step) {
		if w.clockFace(now) != w.clockFace(prev) && (due.IsZero() || due.After(now)) {
			t.Fatalf("the clock face changed between %v and %v, but the next wake was %v", prev.Sub(t0), now.Sub(t0), due.Sub(t0))
		}
		if !due.IsZero() && !due.After(now) {
			wakes++
			if due = next(now); !due.IsZero() && !due.After(now) {
				t.Fatalf("at %v the next wake %v is not ahead", now.Sub(t0), due.Sub(t0))
			}
		}
		prev = now
	}
	// Once a minute for the first hour, once an hour after, and each
	// second of the two countdowns' five minutes.
	if wakes > 900 {
		t.Errorf("%d wakes in three hours", wakes)
	}
	t.Logf("%d wakes in three hours", wakes)
}

// The clock's one timer may not count a device's sleep: shown again, the
// page reads the clock at once, and the clocks on screen catch up.
func TestClockCatchesUpWhenShown(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	w.now = time.Now().Add(-3 * time.Hour) // the page slept with its timer
	w.onVisibilityChange(ctx, app.Event{Value: app.Undefined()})
	if behind := time.Since(w.now); behind > time.Minute {
		t.Errorf("shown again, the clocks read %v behind", behind.Round(time.Minute))
	}
}

// A request with no fields has Accept for its button: its notice says
// the person accepted, not that something was sent.
func TestWidgetAcceptWithoutFields(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Go on?", `{"type":"object","properties":{}}`), testMeta)
	w.answer(w.queue.find("r1"), wire.ElicitResult{Action: wire.ActionAccept})
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnswered})
	if n := show(t, w, d).mustFind(t, "[data-outcome=answered]").textContent(); !strings.Contains(n, "You accepted.") || strings.Contains(n, "Sent to") {
		t.Errorf("notice %q; want it to say the person accepted", n)
	}
}

// The requests the bridge replays as the page connects are not news:
// nothing is said of them. One that comes after Synced is.
func TestWidgetReplayNotSaid(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	w.onHello(ctx, &wire.HelloResult{Pending: 2})
	ask(t, w, ctx, "r1", formParams(t, "A", shortSchema), metaAt(0))
	ask(t, w, ctx, "r2", formParams(t, "B", shortSchema), metaAt(1))
	if w.arrival != "" {
		t.Errorf("a replayed request was said: %q", w.arrival)
	}
	w.onSynced(ctx, []string{"r1", "r2"})
	ask(t, w, ctx, "r3", formParams(t, "C", shortSchema), metaAt(2))
	if !strings.Contains(w.arrival, "New request from Deploy Bot") {
		t.Errorf("a new request after Synced was said as %q", w.arrival)
	}
}

// A draft that kept no inputs (the one field with a value holds a
// secret, which is never stored) leaves the request's default in place.
func TestWidgetDraftWithoutInputs(t *testing.T) {
	w, d, _ := mountWidget(t)
	store(draftKey("r1"), &draft{Touched: map[string]bool{"key": true}})
	ask(t, w, d.Context(), "r1", formParams(t, "Key?", `{"type":"object","properties":{"key":{"type":"string","title":"API key","default":"none yet"}}}`), testMeta)
	if got := w.queue.find("r1").Draft.value("key"); got != "none yet" {
		t.Errorf("after a reload the field holds %q, want its default", got)
	}
}

// Embedded, a refused token is told without a link: the person was
// sent none.
func TestWidgetRefusedEmbedded(t *testing.T) {
	w, d, _ := mountWidget(t)
	embedded = true
	t.Cleanup(func() { embedded = false })
	w.onFatal(true)
	if got := show(t, w, d).textContent(); !strings.Contains(got, "was not accepted") || strings.Contains(got, "link") {
		t.Errorf("embedded with a refused token the widget reads %q", got)
	}
}
