package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/formbridge/formbridge/server/hub"
)

// Where keyboard focus goes when the element holding it leaves the page.
// Left on <body>, the next Tab starts over at the top of the page and a
// screen reader loses its place.

// focusIn fails unless keyboard focus comes inside an element matching
// sel.
func focusIn(t *testing.T, ctx context.Context, sel, after string) {
	t.Helper()
	focusComes(t, ctx, `document.activeElement?.closest(`+css(sel)+`) != null`, after, "want it in "+sel)
}

// focusWait bounds how long focus may take to land: the widget moves it
// once the page has updated, in go-app's next frame (16 ms apart), which
// may come after the page already shows the element it goes to.
const focusWait = 5 * time.Second

// focusComes fails unless the JavaScript condition on where focus is
// (cond) holds within focusWait; want says where it should be.
func focusComes(t *testing.T, ctx context.Context, cond, after, want string) {
	t.Helper()
	pctx, cancel := context.WithTimeout(ctx, focusWait+stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(focusWait))); err != nil {
		t.Errorf("%s, focus is on %q; %s", after, eval[string](t, ctx, activeElement), want)
	}
}

// activeElement describes where keyboard focus is: "BODY" when it was lost.
const activeElement = `(() => { const a = document.activeElement; return a ? a.tagName + (a.id ? "#" + a.id : "") + (a.dataset.action ? "[" + a.dataset.action + "]" : "") + " " + (a.textContent || "").trim().slice(0, 60) : "none"; })()`

// TestFocusAfterLastAnswer: Send is disabled while the answer goes,
// which blurs it, and then the form leaves; focus goes to the notice
// that says it was sent.
func TestFocusAfterLastAnswer(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	id := waitForm(t, ctx)
	do(t, ctx, "type, then Enter on Send", chromedp.SendKeys(field("note", "textarea, input"), "ok"), chromedp.Focus(action("accept")), chromedp.KeyEvent(kb.Enter))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"note":"ok"}}`)
	do(t, ctx, "the form leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)), chromedp.WaitVisible(chromedp.CSS(`[data-outcome="answered"]`)))
	focusIn(t, ctx, `[data-outcome="answered"]`, "after the only request was sent from the keyboard")
}

// TestFocusAfterNoticeOK: OK closes the notice that held focus; focus
// goes to the empty page's heading.
func TestFocusAfterNoticeOK(t *testing.T) {
	ctx := sentNotice(t)
	do(t, ctx, "OK from the keyboard", chromedp.Focus(chromedp.CSS(`[data-outcome="answered"] button`)), chromedp.KeyEvent(kb.Enter),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-outcome="answered"]`)))
	focusIn(t, ctx, `.fb-empty`, "after OK on the notice")
}

// TestFocusAfterServerCancels: the server calls the only request off
// while the person is typing in it.
func TestFocusAfterServerCancels(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	callerCtx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	go b.Hub.Elicit(callerCtx, hub.DefaultChannel, Requester, json.RawMessage(noteQuestion), nil)
	waitForm(t, ctx)
	do(t, ctx, "type", chromedp.SendKeys(field("note", "textarea, input"), "o"))
	giveUp()
	do(t, ctx, "withdrawn", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="cancelled"]`)))
	focusIn(t, ctx, `[data-outcome="cancelled"]`, "after the server called the request off")
}

// TestFocusAfterOpenLink: Open link on the only request; coming back
// from the new tab, focus is on the notice that says it is waiting.
func TestFocusAfterOpenLink(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"mode":"url","message":"Connect your calendar","elicitationId":"el-1","url":"https://calendar.example.com/connect"}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "Open link from the keyboard", chromedp.Focus(action("open")), chromedp.KeyEvent(kb.Enter))
	wantResult(t, await(t, ctx, out), `{"action":"accept"}`)
	do(t, ctx, "the waiting notice", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="waiting"]`)))
	focusIn(t, ctx, `[data-outcome="waiting"]`, "after Open link")
}

// sentNotice opens the widget, answers a request and waits for the
// notice that says it was sent.
func sentNotice(t *testing.T) context.Context {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	sendNote(t, ctx, out)
	do(t, ctx, "the notice", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="answered"] button`)))
	return ctx
}

// TestFocusAfterQueueListLeaves: two requests wait; the person has
// Tabbed to the list of requests (on the open one's entry). The server
// calls the other off: one request is left, the list goes with it, and
// focus, which was in the list, must not fall to <body>.
func TestFocusAfterQueueListLeaves(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	open := waitForm(t, ctx)
	callerCtx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	go b.Hub.Elicit(callerCtx, hub.DefaultChannel, Requester, json.RawMessage(noteQuestion), nil)
	waitJS(t, ctx, "the list of two", `document.querySelectorAll(".fb-queue-item").length === 2`)
	do(t, ctx, "Tab to the open request's entry", chromedp.Focus(chromedp.CSS(`.fb-queue-item[data-request-id=`+css(open)+`]`)))
	giveUp()
	do(t, ctx, "the other is called off", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="cancelled"]`)), chromedp.WaitNotPresent(chromedp.CSS(`.fb-queue`)))
	waitJS(t, ctx, "the page to settle", `document.getAnimations().every((a) => a.playState !== "running")`)
	focusComes(t, ctx, `document.activeElement !== null && document.activeElement !== document.body`, "after the list left", "want it kept in the page (the notice, or the open request)")
	do(t, ctx, "dismiss", chromedp.Click(action("cancel")))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}

// callSecondOffWithFocusOn opens three requests, has the person Tab to
// the entry of the second (at 1) or third (at 2) in the list, calls the
// second off, and returns the page once the list is down to two, with
// the ids of the second and third.
func callSecondOffWithFocusOn(t *testing.T, at int) (ctx context.Context, second, third string) {
	b := StartBridge(t, nil)
	ctx = NewBrowser(t)
	openWidget(t, ctx, b)
	b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	callerCtx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	go b.Hub.Elicit(callerCtx, hub.DefaultChannel, Requester, json.RawMessage(noteQuestion), nil)
	entry := func(i int) string {
		return eval[string](t, ctx, `document.querySelectorAll(".fb-queue-item")[`+strconv.Itoa(i)+`].dataset.requestId`)
	}
	waitJS(t, ctx, "the list of two", `document.querySelectorAll(".fb-queue-item").length === 2`)
	second = entry(1)
	b.Elicit(t, noteQuestion, nil)
	waitJS(t, ctx, "the list of three", `document.querySelectorAll(".fb-queue-item").length === 3`)
	third = entry(2)
	do(t, ctx, "Tab to an entry", chromedp.Focus(chromedp.CSS(`.fb-queue-item[data-request-id=`+css(entry(at))+`]`)))
	giveUp()
	do(t, ctx, "the second is called off", chromedp.WaitNotPresent(chromedp.CSS(`.fb-queue-item[data-request-id=`+css(second)+`]`)))
	waitJS(t, ctx, "the list of two", `document.querySelectorAll(".fb-queue-item").length === 2`)
	waitJS(t, ctx, "the page to settle", `document.getAnimations().every((a) => a.playState !== "running")`)
	return ctx, second, third
}

// TestFocusStaysWithItsRow: the person is on the third request's entry
// when the second is called off. The list's rows are reused by position,
// so the third entry now fills the second row: focus must go with it,
// not fall back to the page.
func TestFocusStaysWithItsRow(t *testing.T) {
	ctx, _, third := callSecondOffWithFocusOn(t, 2)
	focusComes(t, ctx, `document.activeElement?.dataset.requestId === `+strconv.Quote(third), "after the entry above left", "want the entry of "+third+", where it was")
}

// TestFocusedRowLeaves: the person is on the second request's entry when
// it is called off. Its row now shows the third request: focus must not
// sit on it silently, as if the person had moved to another request; it
// goes where refocus puts it (the notice saying it was called off).
func TestFocusedRowLeaves(t *testing.T) {
	ctx, _, third := callSecondOffWithFocusOn(t, 1)
	focusIn(t, ctx, `[data-outcome="cancelled"]`, "after the focused entry's request was called off")
	if got := eval[string](t, ctx, `document.activeElement?.dataset.requestId ?? ""`); got == third {
		t.Errorf("after the focused entry left, focus is on the entry of another request (%q): %s", third, eval[string](t, ctx, activeElement))
	}
}
