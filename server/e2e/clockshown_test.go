package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/hub"
)

// TestCountdownRunsAfterTabShown: the person looks at another tab and
// comes back (visibilitychange) while a request waits in its last
// minute. The countdown on screen must keep counting after that, not
// stay at what it read when the tab was shown again.
func TestCountdownRunsAfterTabShown(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	b.Elicit(t, noteQuestion, &hub.ElicitOptions{Timeout: 50 * time.Second})
	waitForm(t, ctx)
	waitJS(t, ctx, "the countdown", `document.querySelector(".fb-countdown") !== null`)
	// The tab is shown again (document.hidden stays false here).
	eval[bool](t, ctx, `document.dispatchEvent(new Event("visibilitychange", {bubbles: true})), true`)
	const read = `document.querySelector(".fb-countdown")?.innerText ?? ""`
	time.Sleep(500 * time.Millisecond)
	before := eval[string](t, ctx, read)
	time.Sleep(3 * time.Second)
	if after := eval[string](t, ctx, read); after == before {
		t.Errorf("3 s after the tab was shown again the countdown still reads %q", after)
	}
}

// TestClocksCatchUpWhenShown: the device slept with the page open (its
// clock's timer did not count the sleep); shown again, the clocks on
// screen read the time at once, not when that timer would have come.
// The sleep is the page's Date moved three minutes on.
func TestClocksCatchUpWhenShown(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	b.Elicit(t, noteQuestion, nil)
	waitJS(t, ctx, "the list of two, just asked", `[...document.querySelectorAll(".fb-queue-when")].map((e) => e.innerText).join() === "just now,just now"`)
	eval[bool](t, ctx, `(() => {
		const Real = Date, later = 3 * 60 * 1000;
		window.Date = class extends Real {
			constructor(...a) { if (a.length) super(...a); else super(Real.now() + later); }
			static now() { return Real.now() + later; }
		};
		document.dispatchEvent(new Event("visibilitychange", {bubbles: true}));
		return true;
	})()`)
	// The clock's own timer would come about a minute later.
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	const caughtUp = `[...document.querySelectorAll(".fb-queue-when")].every((e) => e.innerText.startsWith("3 minutes ago"))`
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](caughtUp, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("5 s after the page was shown again the list reads %q; want 3 minutes ago", eval[string](t, ctx, `[...document.querySelectorAll(".fb-queue-when")].map((e) => e.innerText).join()`))
	}
}
