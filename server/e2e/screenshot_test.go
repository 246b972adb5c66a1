package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshots writes the form and the URL card, light and dark, at
// desktop and phone width, to out/ for people to look at.
func TestScreenshots(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	dir := outDir(t)

	shoot := func(name string) {
		for _, width := range []int64{1200, 375} {
			for _, scheme := range []string{"light", "dark"} {
				colorScheme(t, ctx, scheme)
				sctx, cancel := context.WithTimeout(ctx, stepTimeout)
				err := chromedp.Do(sctx,
					chromedp.EmulateViewport(width, 900),
					chromedp.Sleep(200*time.Millisecond), // let layout and transitions settle
				)
				if err != nil {
					cancel()
					t.Fatalf("viewport %d: %v", width, err)
				}
				// A full-page capture keeps the viewport's height, so the
				// sticky action bar would be drawn mid-page: make the
				// viewport as tall as the page instead.
				height := eval[float64](t, sctx, `document.documentElement.scrollHeight`)
				if err := chromedp.Do(sctx, chromedp.EmulateViewport(width, int64(height)), chromedp.Sleep(100*time.Millisecond)); err != nil {
					cancel()
					t.Fatalf("viewport %dx%v: %v", width, height, err)
				}
				img, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
				cancel()
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				p := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.png", name, scheme, width))
				if err := os.WriteFile(p, img, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", p)
			}
		}
	}

	form := b.Elicit(t, allKinds, nil)
	formID := waitForm(t, ctx)
	do(t, ctx, "fill a little", chromedp.SendKeys(field("name", "textarea, input"), "Ada Lovelace"), chromedp.SendKeys(field("email", "input"), "not-an-email"), chromedp.Focus(field("site", "input")))
	shoot("form")
	do(t, ctx, "cancel", chromedp.Click(action("cancel")))
	await(t, ctx, form)
	do(t, ctx, "the form leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(formID)+`]`)))

	link := b.Elicit(t, `{"mode":"url","message":"Connect your calendar so the assistant can book the meeting.","elicitationId":"el-1","url":"https://xn--pple-43d.com:8443/login?next=/calendar"}`, nil)
	waitForm(t, ctx)
	shoot("url")
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	await(t, ctx, link)
}
