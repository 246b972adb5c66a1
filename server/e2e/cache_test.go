package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestSecondVisit: a first visit downloads the wasm once, from the
// page's head; a second visit in the same browser asks the bridge
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
	wantWasmPreloaded(t, ctx)
	// Counted once the first page is gone, so none of its late requests
	// (an icon, the worker) pass for the second visit's.
	do(t, ctx, "leave", chromedp.Navigate("about:blank"))
	first := b.Requests()
	if n := len(slices.DeleteFunc(slices.Clone(first), func(r string) bool { return !strings.HasSuffix(r, "/web/app.wasm") })); n != 1 {
		t.Fatalf("the first visit fetched the wasm %d times, want once: %q", n, first)
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

// wantWasmPreloaded checks that the page downloaded its wasm once, from
// its head (the preload server/site writes), and that go-app's loader
// took that answer: Resource Timing credits the one download to the
// link element.
func wantWasmPreloaded(t *testing.T, ctx context.Context) {
	t.Helper()
	if got := eval[string](t, ctx, `performance.getEntriesByType("resource").filter((r) => r.name.endsWith("/app.wasm")).map((r) => r.initiatorType).join(",")`); got != "link" {
		t.Errorf("the page's downloads of app.wasm were started by %q, want once, by the preload link", got)
	}
}
