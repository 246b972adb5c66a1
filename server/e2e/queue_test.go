package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/formbridge/formbridge/server/hub"
)

// TestQueueAnswersReachTheirCallers: two requests wait; the oldest shows
// first, and each answer reaches the caller who asked it.
func TestQueueAnswersReachTheirCallers(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	first := b.Elicit(t, `{"message":"First: approve the invoice?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean","default":true}}}}`, nil)
	waitForm(t, ctx)
	second := b.Elicit(t, `{"message":"Second: your team name?","requestedSchema":{"type":"object","properties":{"team":{"type":"string"}},"required":["team"]}}`, nil)
	waitJS(t, ctx, "the second request in the queue", `document.body.innerText.includes("Second: your team name?")`)

	if !eval[bool](t, ctx, `document.querySelector("form[data-elicitation-id]").innerText.includes("First: approve the invoice?")`) {
		t.Fatal("the open form is not the oldest request")
	}
	// Focus stays in the first; the second is told to screen readers.
	if got := eval[string](t, ctx, `document.querySelector("[role=status].fb-arrival")?.textContent ?? "none"`); !strings.HasPrefix(got, "New request from ") || !strings.HasSuffix(got, ". 2 requests waiting.") {
		t.Errorf("the live region says %q; want the second request's arrival", got)
	}
	do(t, ctx, "decline the first", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, first), `{"action":"decline"}`)
	noResultYet(t, second, "after answering the first")

	do(t, ctx, "the second opens", chromedp.WaitVisible(field("team", "textarea, input")))
	// Focus moves to its title in go-app's next frame (see focusWait).
	waitJS(t, ctx, "focus on the second's title", `document.activeElement?.matches("h2.fb-title") === true`)
	do(t, ctx, "answer the second", chromedp.SendKeys(field("team", "textarea, input"), "Payments"), chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, second), `{"action":"accept","content":{"team":"Payments"}}`)
}

// TestServerWithdraws: when the asking server gives up, the request
// leaves the page with a word about it.
func TestServerWithdraws(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	callerCtx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	done := make(chan error, 1)
	go func() {
		_, err := b.Hub.Elicit(callerCtx, hub.DefaultChannel, Requester,
			json.RawMessage(`{"message":"Still there?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}`), nil)
		done <- err
	}()
	id := waitForm(t, ctx)
	giveUp()
	if err := <-done; err == nil {
		t.Error("Elicit returned no error after its context ended")
	}
	do(t, ctx, "withdrawn",
		chromedp.WaitVisible(chromedp.CSS(`[data-outcome="cancelled"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
}

// TestNextRequestFocusesTitle: the person sends one request from the
// keyboard, and the next opens with focus on its title, not on a control:
// a second press of Space or Enter, meant for the first, must not tick or
// send the next one unread.
func TestNextRequestFocusesTitle(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	first := b.Elicit(t, `{"message":"First: your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`, nil)
	firstID := waitForm(t, ctx)
	second := b.Elicit(t, `{"message":"Second: delete the archive?","requestedSchema":{"type":"object","properties":{"sure":{"type":"boolean","title":"Yes, delete it"}},"required":["sure"]}}`, nil)
	waitJS(t, ctx, "the second request in the queue", `document.body.innerText.includes("Second: delete the archive?")`)
	waitJS(t, ctx, "focus in the first field", `document.activeElement?.closest("[data-field=name]") != null`)

	do(t, ctx, "type and send with Enter", chromedp.SendKeys(field("name", "textarea, input"), "Ada"), chromedp.Focus(action("accept")), chromedp.KeyEvent(kb.Enter))
	wantResult(t, await(t, ctx, first), `{"action":"accept","content":{"name":"Ada"}}`)
	do(t, ctx, "the second opens", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(firstID)+`]`)), chromedp.WaitVisible(field("sure", "input")))
	waitJS(t, ctx, "focus on the second's title", `document.activeElement?.matches("h2.fb-title") === true`)
	do(t, ctx, "press Space, Enter and Escape again", chromedp.KeyEvent(" "), chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Escape))
	noResultYet(t, second, "after keys meant for the first")
	if eval[bool](t, ctx, `document.querySelector("[data-field=sure] input").checked`) {
		t.Error("a Space meant for the first request ticked the second")
	}

	// The server's next question, asked once it has its answer, opens on
	// a page that showed nothing for a moment: the same holds.
	do(t, ctx, "tick and send the second", chromedp.Click(field("sure", "input")), chromedp.Focus(action("accept")), chromedp.KeyEvent(kb.Enter))
	wantResult(t, await(t, ctx, second), `{"action":"accept","content":{"sure":true}}`)
	do(t, ctx, "the page empties", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id]`)))
	third := b.Elicit(t, `{"message":"Third: delete the backups too?","requestedSchema":{"type":"object","properties":{"sure":{"type":"boolean","title":"Yes, delete them"}},"required":["sure"]}}`, nil)
	waitForm(t, ctx)
	waitJS(t, ctx, "focus on the third's title", `document.activeElement?.matches("h2.fb-title") === true`)
	do(t, ctx, "press Space, Enter and Escape again", chromedp.KeyEvent(" "), chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Escape))
	noResultYet(t, third, "after keys meant for the second")
}
