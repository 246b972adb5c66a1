package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestSecondVisit: a second visit in the same browser asks the bridge
// only whether the page changed, and connects; the wasm, go-app's loader
// and every other file the page links come from the browser's cache
// without a question, so nothing waits on a round trip before the wasm
// starts.
func TestSecondVisit(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	out := b.Elicit(t, noteQuestion, nil)
	do(t, ctx, "open the widget", chromedp.Navigate(b.WidgetURL()))
	waitForm(t, ctx)
	// Counted once the first page is gone, so none of its late requests
	// (an icon, the worker) pass for the second visit's.
	do(t, ctx, "leave", chromedp.Navigate("about:blank"))
	first := b.Requests()
	if !slices.ContainsFunc(first, func(r string) bool { return strings.HasSuffix(r, "/web/app.wasm") }) {
		t.Fatalf("the first visit never fetched the wasm: %q", first)
	}
	do(t, ctx, "open the widget again", chromedp.Navigate(b.WidgetURL()))
	waitForm(t, ctx)
	sendNote(t, ctx, out)
	// The service worker's script is checked for updates by the browser
	// itself, bypassing its cache, and the manifest is fetched without
	// keeping it; neither holds the page back.
	allowed := map[string]bool{"GET /": true, "GET /ws": true, "GET /app-worker.js": true, "GET /manifest.webmanifest": true}
	for _, r := range b.Requests()[len(first):] {
		if !allowed[r] {
			t.Errorf("the second visit asked the bridge for %s; all: %q", r, b.Requests()[len(first):])
		}
	}
}
