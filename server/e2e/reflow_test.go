package e2e

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestNoticeReflows: at 320 CSS px (a phone, or 400% zoom on a 1280 px
// screen; WCAG 1.4.10) a notice still says which request it is about.
// Once a request has left, its notice is the only place that says what
// was asked; two requests alike but for their end ("…for the Lisbon
// office", "…for the Porto office") must not both read "Approve the
// quarterly marketing bu…", and a long digest must wrap, not run off.
func TestNoticeReflows(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	asks := []string{
		"Approve the quarterly marketing budget for the Lisbon office",
		"Deploy image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c?",
	}
	for _, ask := range asks {
		out := b.Elicit(t, `{"message":`+strconv.Quote(ask)+`,"requestedSchema":{"type":"object","properties":{"note":{"type":"string","title":"Note"}}}}`, nil)
		waitForm(t, ctx)
		do(t, ctx, "decline", chromedp.Click(action("decline")))
		wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
	}
	waitJS(t, ctx, "both notices", `document.querySelectorAll('[data-outcome="answered"] .fb-notice-what').length === 2`)
	for _, width := range []int64{1280, 320} {
		do(t, ctx, "viewport", chromedp.EmulateViewport(width, 640))
		for i, ask := range asks {
			shown := eval[map[string]float64](t, ctx, `(() => {
				const e = [...document.querySelectorAll('[data-outcome="answered"] .fb-notice-what')].find((e) => e.textContent === `+strconv.Quote(ask)+`);
				return {scroll: e.scrollWidth, client: e.clientWidth, right: e.getBoundingClientRect().right, page: document.documentElement.scrollWidth, view: innerWidth};
			})()`)
			if shown["scroll"] > shown["client"]+1 || shown["right"] > shown["view"] {
				t.Errorf("%d px wide: the notice shows %.0f px of its %.0f px summary %q; the rest is cut off", width, shown["client"], shown["scroll"], asks[i])
			}
			if shown["page"] > shown["view"] {
				t.Errorf("%d px wide: the page is %.0f px wide and scrolls sideways", width, shown["page"])
			}
		}
	}
}
