package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// mouseClick clicks the centre of the element sel with the mouse, as a
// person does: the button goes down, stays down for a moment (people
// hold a click for about a tenth of a second, long enough for the page
// to re-render after the field they leave loses focus) and comes up at
// the same point. Whatever is under the pointer then gets the click, so
// a button that moved in between loses it, as it would for a person.
func mouseClick(t *testing.T, ctx context.Context, sel chromedp.CSS) {
	t.Helper()
	type point struct{ X, Y float64 }
	p := eval[point](t, ctx, fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2};
	})()`, strconv.Quote(string(sel))))
	do(t, ctx, "mouse click on "+string(sel),
		chromedp.MouseEvent(chromedp.MousePressed, p.X, p.Y, chromedp.Button("left"), chromedp.ClickCount(1)),
		chromedp.Sleep(150*time.Millisecond),
		chromedp.MouseEvent(chromedp.MouseReleased, p.X, p.Y, chromedp.Button("left"), chromedp.ClickCount(1)),
	)
}

// TestFirstClickCounts: a person in an empty required field who clicks
// Skip or Decline gets that with the first click. Leaving the field
// must not move the buttons between the press and the release.
func TestFirstClickCounts(t *testing.T) {
	const question = `{"message":"Share your phone number?","requestedSchema":{"type":"object","properties":{
		"name":{"type":"string","title":"Name"},
		"phone":{"type":"string","title":"Phone","maxLength":30}},"required":["name","phone"]}}`
	for _, tc := range []struct {
		name, action, want string
		typeThenClear      bool // the person typed and erased, so leaving shows "required"
	}{
		{"dismiss", "cancel", `{"action":"cancel"}`, false},
		{"decline", "decline", `{"action":"decline"}`, false},
		{"dismiss after erasing", "cancel", `{"action":"cancel"}`, true},
		{"decline after erasing", "decline", `{"action":"decline"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := StartBridge(t, nil)
			ctx := NewBrowser(t)
			openWidget(t, ctx, b)
			out := b.Elicit(t, question, nil)
			id := waitForm(t, ctx)
			phone := field("phone", "input")
			do(t, ctx, "focus the empty field", chromedp.Focus(phone))
			if tc.typeThenClear {
				do(t, ctx, "type and erase", chromedp.SendKeys(phone, "1"), chromedp.KeyEvent(kb.Backspace))
			}
			mouseClick(t, ctx, action(tc.action))
			wantResult(t, await(t, ctx, out), tc.want)
			do(t, ctx, "form leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
		})
	}
}

// TestRequiredErrorOnSend: leaving an empty required field says nothing
// (the person may just be reading on); Send then names every missing
// answer, and a field the person erased says so as they leave it.
func TestRequiredErrorOnSend(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Who is coming?","requestedSchema":{"type":"object","properties":{
		"name":{"type":"string","title":"Name","maxLength":40},
		"email":{"type":"string","title":"Email","format":"email"}},"required":["name","email"]}}`, nil)
	waitForm(t, ctx)
	errors := `document.querySelectorAll(".fb-error").length`
	do(t, ctx, "walk through the fields", chromedp.Focus(field("name", "input")), chromedp.Focus(field("email", "input")), chromedp.Focus(field("name", "input")))
	time.Sleep(300 * time.Millisecond)
	if n := eval[int](t, ctx, errors); n != 0 {
		t.Fatalf("%d errors shown after only moving through untouched fields", n)
	}
	do(t, ctx, "erase a typed email", chromedp.SendKeys(field("email", "input"), "a"), chromedp.KeyEvent(kb.Backspace), chromedp.Focus(field("name", "input")))
	waitJS(t, ctx, "the erased field's error", `document.querySelector('[data-field="email"] .fb-error') !== null && document.querySelector('[data-field="name"] .fb-error') === null`)
	mouseClick(t, ctx, action("accept"))
	waitJS(t, ctx, "both errors after Send", `document.querySelectorAll(".fb-error").length === 2 && document.querySelector(".fb-summary") !== null`)
	noResultYet(t, out, "after an invalid Send")
	do(t, ctx, "fill and send",
		chromedp.SendKeys(field("name", "input"), "Ada"),
		chromedp.SendKeys(field("email", "input"), "ada@example.com"),
	)
	// The summary leaves as the last problem is fixed: the field being
	// typed in must keep its focus and everything typed.
	if got := eval[string](t, ctx, `(() => { const el = document.querySelector('[data-field="email"] input'); return (document.activeElement === el) + " " + el.value; })()`); got != "true ada@example.com" {
		t.Fatalf("after fixing the last problem, the email field (focused, value) is %q", got)
	}
	mouseClick(t, ctx, action("accept"))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"name":"Ada","email":"ada@example.com"}}`)
}

// TestAbortedPressShowsProblem: a person presses Decline, changes their
// mind and releases elsewhere. Nothing is sent, and the problem of the
// erased field they left shows once the pointer is up.
func TestAbortedPressShowsProblem(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Your phone?","requestedSchema":{"type":"object","properties":{
		"phone":{"type":"string","title":"Phone","maxLength":30}},"required":["phone"]}}`, nil)
	waitForm(t, ctx)
	phone := field("phone", "input")
	do(t, ctx, "type and erase", chromedp.Focus(phone), chromedp.SendKeys(phone, "1"), chromedp.KeyEvent(kb.Backspace))
	type point struct{ X, Y float64 }
	p := eval[point](t, ctx, `(() => { const r = document.querySelector('button[data-action="decline"]').getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`)
	do(t, ctx, "press Decline, release elsewhere",
		chromedp.MouseEvent(chromedp.MousePressed, p.X, p.Y, chromedp.Button("left"), chromedp.ClickCount(1)),
		chromedp.Sleep(150*time.Millisecond),
		chromedp.MouseEvent(chromedp.MouseMoved, 5, 5, chromedp.Button("left")),
		chromedp.MouseEvent(chromedp.MouseReleased, 5, 5, chromedp.Button("left"), chromedp.ClickCount(1)),
	)
	waitJS(t, ctx, "the erased field's problem", `document.querySelector('[data-field="phone"] .fb-error') !== null`)
	noResultYet(t, out, "after a press that was not a click")
	mouseClick(t, ctx, action("cancel"))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}
