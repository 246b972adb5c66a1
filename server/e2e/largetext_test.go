package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// largeText sets the browser's default text size to px: 16 is the
// default, 32 the 200% of a phone's largest text setting.
func largeText(t *testing.T, ctx context.Context, px int64) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.SetFontSizes, page.SetFontSizesParams{FontSizes: &page.FontSizes{Standard: px, Fixed: px * 13 / 16}}); err != nil {
		t.Fatalf("text size: %v", err)
	}
}

// TestLargeTextFocusNotHidden: on a phone with text at 200%, someone
// using a keyboard or a switch Tabs down the form. The action bar kept
// at the bottom of the screen would take half of it; no control taking
// focus may be wholly under it (WCAG 2.4.11, Focus Not Obscured).
func TestLargeTextFocusNotHidden(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	largeText(t, ctx, 32)
	do(t, ctx, "phone viewport", chromedp.EmulateViewport(375, 667))
	openWidget(t, ctx, b)
	out := b.Elicit(t, allKinds, nil)
	waitForm(t, ctx)
	do(t, ctx, "focus the first field", chromedp.Focus(field("name", "textarea, input")))
	type spot struct {
		What                               string
		Top, Bottom, BarTop, InBar, Height float64
	}
	hidden := false
	for range 40 {
		do(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
		s := eval[spot](t, ctx, `(() => {
			const a = document.activeElement, r = a.getBoundingClientRect();
			const bar = document.querySelector("form[data-elicitation-id] > .fb-actions");
			return {What: a.tagName + " " + (a.closest("[data-field]")?.dataset.field ?? a.dataset.action ?? ""),
				Top: r.top, Bottom: r.bottom, BarTop: bar.getBoundingClientRect().top, InBar: bar.contains(a) ? 1 : 0, Height: innerHeight};
		})()`)
		if s.InBar == 1 {
			break
		}
		if s.Top >= s.BarTop || s.Bottom <= 0 || s.Top >= s.Height {
			hidden = true
			t.Errorf("%s has focus at %.0f-%.0f, wholly under the action bar (from %.0f, screen %.0f tall)", s.What, s.Top, s.Bottom, s.BarTop, s.Height)
		}
	}
	if hidden {
		shot(t, ctx, outDir(t)+"/large-text-focus.png")
	}
	do(t, ctx, "dismiss", chromedp.Click(action("cancel")))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}

// TestLargeTextNoSidewaysScroll: with text at 200%, or a phone zoomed to
// 200% (188 CSS px wide), no field may be wider than the screen: the
// date-and-time box kept its one-line width and the whole page scrolled
// sideways, cutting every label and button off at one edge (WCAG 1.4.10
// Reflow, 1.4.4 Resize Text).
func TestLargeTextNoSidewaysScroll(t *testing.T) {
	for _, tc := range []struct {
		name          string
		width, height int64
		textPx        int64
	}{
		{"375 px, text at 200%", 375, 667, 32},
		{"375 px phone zoomed to 200%", 188, 334, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := StartBridge(t, nil)
			ctx := NewBrowser(t)
			largeText(t, ctx, tc.textPx)
			do(t, ctx, "viewport", chromedp.EmulateViewport(tc.width, tc.height))
			openWidget(t, ctx, b)
			out := b.Elicit(t, allKinds, nil)
			waitForm(t, ctx)
			if w := eval[float64](t, ctx, `document.documentElement.scrollWidth`); w > float64(tc.width) {
				t.Errorf("the page is %.0f px wide on a %d px screen: it scrolls sideways (%s)", w, tc.width,
					eval[string](t, ctx, `[...document.querySelectorAll("[data-field] input")].filter((f) => f.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((f) => f.closest("[data-field]").dataset.field + " " + Math.round(f.getBoundingClientRect().width) + " px").join(", ")`))
			}
			do(t, ctx, "dismiss", chromedp.Click(action("cancel")))
			wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
		})
	}
}
