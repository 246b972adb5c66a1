package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/formbridge/formbridge/server/hub"
)

const connectURL = "https://accounts.example.com/connect?plan=team&state=x1"

const urlParams = `{"mode":"url","message":"Connect your calendar","elicitationId":"el-42","url":"` + connectURL + `"}`

// recordOpen wraps window.open so the test sees how the widget calls it,
// while the call still goes through.
const recordOpen = `(() => {
	const open = window.open;
	window.__opens = [];
	window.open = function (...args) { window.__opens.push(args.map(String)); return open.apply(this, args); };
	return true;
})()`

func TestURLMode(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	out := b.Elicit(t, urlParams, nil)
	waitForm(t, ctx)

	if got := eval[string](t, ctx, `document.querySelector("[data-url]").dataset.url`); got != connectURL {
		t.Errorf("data-url = %q, want the full URL %q", got, connectURL)
	}
	if got := eval[string](t, ctx, `document.querySelector("[data-url]").textContent.trim()`); got != connectURL {
		t.Errorf("the card shows %q, want the full URL %q", got, connectURL)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("form[data-elicitation-id] a").length`); n != 0 {
		t.Errorf("the card has %d links; no text may become a link", n)
	}
	// Nothing is opened, and nothing is answered, without the person.
	time.Sleep(time.Second)
	if n := eval[int](t, ctx, `window.__opens.length`); n != 0 {
		t.Fatalf("the widget opened the link %d times before any click", n)
	}
	noResultYet(t, out, "before Open")

	do(t, ctx, "open", chromedp.Click(action("open")))
	wantResult(t, await(t, ctx, out), `{"action":"accept"}`)
	opens := eval[[][]string](t, ctx, `window.__opens`)
	if len(opens) != 1 || len(opens[0]) != 3 || opens[0][0] != connectURL || opens[0][1] != "_blank" || opens[0][2] != "noopener,noreferrer" {
		t.Errorf("window.open calls = %q, want one (%q, _blank, noopener,noreferrer)", opens, connectURL)
	}
	do(t, ctx, "waiting", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="waiting"]`)))

	if err := b.Hub.Complete(hub.DefaultChannel, "el-42"); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	do(t, ctx, "completed", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="completed"]`)))
}

func TestURLModeDecline(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	out := b.Elicit(t, urlParams, nil)
	waitForm(t, ctx)
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
	if n := eval[int](t, ctx, `window.__opens.length`); n != 0 {
		t.Errorf("declining opened the link")
	}
}

// TestLinkAndFormTakeTurns: a form and a link wait together, and the
// person moves between them. Each opened after the first takes focus on
// its own title, what was typed into the form survives a visit to the
// link, and each answer reaches its own caller.
func TestLinkAndFormTakeTurns(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	form := b.Elicit(t, `{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`, nil)
	formID := waitForm(t, ctx)
	link := b.Elicit(t, urlParams, nil)
	do(t, ctx, "type without sending, then open the link from the list",
		chromedp.WaitVisible(chromedp.CSS(`.fb-queue-item:not([aria-current])`)),
		chromedp.SendKeys(field("name", "textarea, input"), "Ada"),
		chromedp.Click(chromedp.CSS(`.fb-queue-item:not([aria-current])`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-url]`)),
	)
	waitJS(t, ctx, "focus on the link's title", `document.activeElement?.matches(".fb-url-card h2.fb-title") === true`)
	do(t, ctx, "back to the form",
		chromedp.Click(chromedp.CSS(`.fb-queue-item[data-request-id=`+css(formID)+`]`)),
		chromedp.WaitVisible(field("name", "textarea, input")),
	)
	waitJS(t, ctx, "focus on the form's title", `document.activeElement?.matches('form[data-elicitation-id=`+css(formID)+`] h2.fb-title') === true`)
	if got := eval[string](t, ctx, `document.querySelector("[data-field=name] textarea, [data-field=name] input").value`); got != "Ada" {
		t.Errorf("after a visit to the link the name box holds %q, want what was typed, Ada", got)
	}
	do(t, ctx, "send the form", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, form), `{"action":"accept","content":{"name":"Ada"}}`)

	do(t, ctx, "the link opens next", chromedp.WaitVisible(chromedp.CSS(`[data-url]`)))
	waitJS(t, ctx, "focus on the link's title", `document.activeElement?.matches(".fb-url-card h2.fb-title") === true`)
	do(t, ctx, "press Enter, meant for the form", chromedp.KeyEvent(kb.Enter))
	noResultYet(t, link, "after an Enter meant for the form")
	if n := eval[int](t, ctx, `window.__opens.length`); n != 0 {
		t.Fatalf("an Enter meant for the form opened the link")
	}
	do(t, ctx, "decline the link", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, link), `{"action":"decline"}`)
}
