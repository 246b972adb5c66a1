package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/hub"
)

// refundQuestion is a yes/no a team's approvers share.
const refundQuestion = `{"message":"Approve the refund for order 1042?","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve"}},"required":["approve"]}}`

// twoWidgets opens the widget of b's default channel in a browser and in
// a second tab of it, named second: two people on one channel, or one
// person's two devices. prepare runs in the second before its page loads.
func twoWidgets(t *testing.T, b *Bridge, second string, prepare ...string) (first, other context.Context) {
	first = NewBrowser(t)
	other = NewTab(t, first, second)
	for _, script := range prepare {
		runFirst(t, other, script)
	}
	openWidget(t, other, b)
	openWidget(t, first, b)
	return first, other
}

// TestSkippedElsewhereNotCalledAnswered: two approvers have the
// channel open. One presses Skip (MCP's cancel: "dismissed without
// choosing"); the caller gets cancel, and the other approver's form is
// withdrawn. Their notice must not say the request was answered: nobody
// answered it.
func TestSkippedElsewhereNotCalledAnswered(t *testing.T) {
	b := StartBridge(t, nil)
	first, second := twoWidgets(t, b, "approver 2")
	out := b.Elicit(t, refundQuestion, nil)
	id := waitForm(t, first)
	if got := waitForm(t, second); got != id {
		t.Fatalf("tabs show different requests: %s and %s", id, got)
	}
	do(t, first, "approver 1 skips", chromedp.Click(action("cancel")))
	wantResult(t, await(t, first, out), `{"action":"cancel"}`)

	do(t, second, "approver 2's form withdrawn",
		chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)),
		chromedp.WaitVisible(chromedp.CSS(`.fb-notice[data-request-id=`+css(id)+`]`)))
	note := eval[string](t, second, `document.querySelector('.fb-notice[data-request-id=`+css(id)+`]').innerText`)
	if strings.Contains(strings.ToLower(note), "answered") {
		t.Errorf("approver 2 is told the request was answered, though it was skipped unanswered: %q", note)
	}
}

// notificationStub stands in for the browser's Notification (granted),
// recording each one shown and whether it was closed, and makes the
// page read as hidden (a phone in a pocket, a tab in the background).
const notificationStub = `
Object.defineProperty(Document.prototype, "hidden", {get: () => true});
window.__shown = [];
window.Notification = class {
	static get permission() { return "granted"; }
	static requestPermission() { return Promise.resolve("granted"); }
	constructor(title, opts) {
		this.title = title; this.body = opts && opts.body; this.closed = false;
		window.__shown.push(this);
	}
	close() { this.closed = true; if (this.onclose) this.onclose(); }
};`

// TestNotificationWithdrawnWhenAnsweredElsewhere: an approver's phone
// has the widget in the background; a request arrives and the phone
// shows a system notification "… is asking you something". A colleague
// answers it on their laptop. The phone's page withdraws the form, but
// the notification stays, still asking the approver for something
// nobody waits for any more (tapping it opens "Answered in another
// window").
func TestNotificationWithdrawnWhenAnsweredElsewhere(t *testing.T) {
	b := StartBridge(t, nil)
	laptop, phone := twoWidgets(t, b, "phone", notificationStub)
	out := b.Elicit(t, refundQuestion, nil)
	id := waitForm(t, laptop)
	waitJS(t, phone, "the phone's notification", `window.__shown.length === 1`)

	do(t, laptop, "the colleague approves", chromedp.Click(field("approve", "input")), chromedp.Click(action("accept")))
	wantResult(t, await(t, laptop, out), `{"action":"accept","content":{"approve":true}}`)
	do(t, phone, "the phone's form withdrawn",
		chromedp.WaitVisible(chromedp.CSS(`[data-outcome="answered-elsewhere"][data-request-id=`+css(id)+`]`)))
	time.Sleep(300 * time.Millisecond)
	if open := eval[string](t, phone, `window.__shown.filter(n => !n.closed).map(n => n.title + ": " + n.body).join(" | ")`); open != "" {
		t.Errorf("the phone still shows a notification for the request a colleague answered: %q", open)
	}
}

// clockBehind makes the page's clock read ms milliseconds behind the
// bridge's, as on a phone or laptop whose clock was set by hand.
func clockBehind(ms int) string {
	return `(() => {
	const Real = Date, off = -` + strconv.Itoa(ms) + `;
	class Skewed extends Real {
		constructor(...a) { if (a.length === 0) { super(Real.now() + off); } else { super(...a); } }
		static now() { return Real.now() + off; }
	}
	window.Date = Skewed;
})();`
}

// TestCountdownFollowsTheBridgesClock: a request has two minutes left.
// An approver whose device clock runs three minutes behind the bridge's
// must not read "Closes in 5 min": the request will expire (and vanish
// from their screen) while the card still promises minutes.
func TestCountdownFollowsTheBridgesClock(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, clockBehind(3*60*1000))
	openWidget(t, ctx, b)
	b.Elicit(t, noteQuestion, &hub.ElicitOptions{Timeout: 2 * time.Minute})
	waitForm(t, ctx)
	time.Sleep(1500 * time.Millisecond) // a tick of the widget's clock
	shown := eval[string](t, ctx, `document.querySelector(".fb-countdown")?.innerText ?? ""`)
	if shown != "Closes in 1 min" && shown != "Closes in 2 min" { // 1:59 or so, read on the widget's last tick
		t.Errorf("with 2 minutes left, the card reads %q", shown)
	}
}

// TestCountdownAfterSlowLoad: the device's clock is right; only the wasm
// is slow to arrive (a phone on a poor network), so hello's answer waits
// in the page's early socket for 8 s. The widget must not take that wait
// for a clock that is behind: the countdown would then promise 8 s more
// than the request has.
func TestCountdownAfterSlowLoad(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, recordSockets)
	release := holdWasm(t, ctx)
	do(t, ctx, "open the widget", chromedp.Navigate(b.WidgetURL()))
	waitJS(t, ctx, "the early connection", `__sockets.length === 1 && __sockets[0].ws.readyState === WebSocket.OPEN`)
	time.Sleep(500 * time.Millisecond) // hello's answer arrives in the early socket
	start := time.Now()
	b.Elicit(t, noteQuestion, &hub.ElicitOptions{Timeout: 50 * time.Second})
	time.Sleep(8 * time.Second) // the wasm is still on its way
	release()
	waitForm(t, ctx)
	time.Sleep(1500 * time.Millisecond) // a tick of the widget's clock
	shown := eval[string](t, ctx, `document.querySelector(".fb-countdown")?.innerText ?? ""`)
	left := 50*time.Second - time.Since(start)
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(shown, "Closes in "), " sec"))
	if err != nil || time.Duration(n)*time.Second > left+3*time.Second {
		t.Errorf("with %.0f s left, the card reads %q", left.Seconds(), shown)
	}
}
