package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// layout is where the action bar and the focused control are on screen.
type layout struct {
	ViewportHeight, PageWidth, ViewportWidth float64
	BarTop, BarBottom, SendBottom            float64
	FocusTop, FocusBottom                    float64
}

const measure = `(() => {
	const bar = document.querySelector("form[data-elicitation-id] > .fb-actions").getBoundingClientRect();
	const send = document.querySelector('button[data-action="accept"]').getBoundingClientRect();
	const f = document.activeElement.getBoundingClientRect();
	return {ViewportHeight: innerHeight, ViewportWidth: innerWidth, PageWidth: document.documentElement.scrollWidth,
		BarTop: bar.top, BarBottom: bar.bottom, SendBottom: send.bottom, FocusTop: f.top, FocusBottom: f.bottom};
})()`

// TestPhoneActionsInReach: on a phone a long form is several screens
// tall; Send, Decline and Skip stay on screen while the person is
// anywhere in it, never over the field they are in, at 375 and at the
// 320 px minimum. Viewport screenshots go to out/ for people to look at.
func TestPhoneActionsInReach(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, allKinds, nil)
	waitForm(t, ctx)
	dir := outDir(t)

	for _, width := range []int64{375, 320} {
		do(t, ctx, "phone viewport", chromedp.EmulateViewport(width, 640))
		// The first field has focus as the form opens: the bar is at the
		// bottom of the screen, the form goes on below it.
		do(t, ctx, "top", chromedp.Focus(field("name", "textarea, input")))
		eval[bool](t, ctx, `scrollTo(0, 0), true`)
		l := eval[layout](t, ctx, measure)
		if l.SendBottom > l.ViewportHeight || l.BarTop < l.ViewportHeight/2 {
			t.Errorf("%d px, top of the form: Send at %.0f, bar from %.0f, screen %.0f tall", width, l.SendBottom, l.BarTop, l.ViewportHeight)
		}
		if l.PageWidth > l.ViewportWidth {
			t.Errorf("%d px: the page is %.0f px wide, it scrolls sideways", width, l.PageWidth)
		}
		// Fields reached with the keyboard, down the form, are scrolled
		// into view above the bar, not under it.
		for _, key := range []string{"budget", "nights", "airport"} {
			do(t, ctx, "focus "+key, chromedp.Focus(field(key, "input, select")))
			l := eval[layout](t, ctx, measure)
			if l.FocusBottom > l.BarTop || l.FocusTop < 0 || l.SendBottom > l.ViewportHeight {
				t.Errorf("%d px, %s focused: field %.0f-%.0f, bar from %.0f, Send ends at %.0f, screen %.0f",
					width, key, l.FocusTop, l.FocusBottom, l.BarTop, l.SendBottom, l.ViewportHeight)
			}
		}
		for _, scheme := range []string{"light", "dark"} {
			colorScheme(t, ctx, scheme)
			shot(t, ctx, filepath.Join(dir, fmt.Sprintf("phone-mid-%s-%d.png", scheme, width)))
		}
	}

	// A desktop shows the same bar under a long form.
	do(t, ctx, "desktop viewport", chromedp.EmulateViewport(1200, 900))
	eval[bool](t, ctx, `scrollTo(0, 0), true`)
	if l := eval[layout](t, ctx, measure); l.SendBottom > l.ViewportHeight {
		t.Errorf("1200 px: Send ends at %.0f, below the %.0f px screen", l.SendBottom, l.ViewportHeight)
	}
	for _, scheme := range []string{"light", "dark"} {
		colorScheme(t, ctx, scheme)
		shot(t, ctx, filepath.Join(dir, "desktop-top-"+scheme+"-1200.png"))
	}
	do(t, ctx, "back to a phone", chromedp.EmulateViewport(375, 640))

	// Send from the bar with nothing filled in: the summary and the
	// first problem are shown, focus is on it, and it is not under the bar.
	mouseClick(t, ctx, action("accept"))
	waitJS(t, ctx, "the error summary", `document.querySelector(".fb-summary") !== null && document.activeElement.id !== ""`)
	colorScheme(t, ctx, "light")
	shot(t, ctx, filepath.Join(dir, "phone-errors-light-375.png"))
	if top := eval[float64](t, ctx, `document.querySelector(".fb-summary").getBoundingClientRect().top`); top < 0 {
		t.Errorf("after Send the error summary starts %.0f px above the screen", -top)
	}
	l := eval[layout](t, ctx, measure)
	if l.FocusBottom > l.BarTop || l.FocusTop < 0 {
		t.Errorf("after Send, the first invalid field is at %.0f-%.0f, the bar from %.0f", l.FocusTop, l.FocusBottom, l.BarTop)
	}
	mouseClick(t, ctx, action("cancel"))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}

// shot saves what the viewport shows.
func shot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	img, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// TestLandscapePhoneActionsInReach: a phone turned sideways (844 x 390,
// text at its default size) is under 30rem tall but the action bar is
// one row there, a sixth of the screen. A long form's Send, Decline and
// Skip stay in reach as they do upright (TestPhoneActionsInReach),
// and a field reached with the keyboard is above the bar, not under it.
func TestLandscapePhoneActionsInReach(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	do(t, ctx, "landscape phone", chromedp.EmulateViewport(844, 390))
	openWidget(t, ctx, b)
	out := b.Elicit(t, allKinds, nil)
	waitForm(t, ctx)
	do(t, ctx, "top", chromedp.Focus(field("name", "textarea, input")))
	eval[bool](t, ctx, `scrollTo(0, 0), true`)
	if l := eval[layout](t, ctx, measure); l.SendBottom > l.ViewportHeight {
		t.Errorf("844 x 390, top of the form: Send ends at %.0f, below the %.0f px screen; the bar is %.0f px tall",
			l.SendBottom, l.ViewportHeight, l.BarBottom-l.BarTop)
	}
	for _, key := range []string{"budget", "nights", "airport"} {
		do(t, ctx, "focus "+key, chromedp.Focus(field(key, "input, select")))
		if l := eval[layout](t, ctx, measure); l.FocusBottom > l.BarTop || l.FocusTop < 0 || l.SendBottom > l.ViewportHeight {
			t.Errorf("844 x 390, %s focused: field %.0f-%.0f, bar from %.0f, Send ends at %.0f, screen %.0f",
				key, l.FocusTop, l.FocusBottom, l.BarTop, l.SendBottom, l.ViewportHeight)
		}
	}
	do(t, ctx, "dismiss", chromedp.Click(action("cancel")))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}

// TestPhoneNoticesLeaveRoom: on a phone, after three answers in a row,
// the next question is not pushed a screen down by three "Sent to"
// notices: with a request open, only the newest shows.
func TestPhoneNoticesLeaveRoom(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	do(t, ctx, "phone viewport", chromedp.EmulateViewport(375, 640))
	openWidget(t, ctx, b)
	for range 3 {
		out := b.Elicit(t, noteQuestion, nil)
		id := waitForm(t, ctx)
		sendNote(t, ctx, out)
		do(t, ctx, "the form leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
	}
	visible := `[...document.querySelectorAll(".fb-notice")].filter((n) => n.checkVisibility()).length`
	if n := eval[int](t, ctx, visible); n != 3 {
		t.Errorf("%d notices show on the empty page; want all three", n)
	}
	b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	if n := eval[int](t, ctx, visible); n != 1 {
		t.Errorf("%d notices show above the next question on a phone; want only the newest", n)
	}
	if top := eval[float64](t, ctx, `document.querySelector(".fb-card").getBoundingClientRect().top`); top > 320 {
		t.Errorf("the next question starts %.0f px down a 640 px screen", top)
	}
	do(t, ctx, "a wider screen", chromedp.EmulateViewport(1200, 900))
	if n := eval[int](t, ctx, visible); n != 3 {
		t.Errorf("%d notices show on a desktop; want all three", n)
	}
}
