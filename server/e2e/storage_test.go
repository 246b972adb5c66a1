package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// blockStorage makes the page's session and local storage throw, as a
// browser does in a frame whose storage it blocks (third-party storage
// turned off, or a sandboxed frame).
const blockStorage = `for (const name of ["sessionStorage", "localStorage"]) {
  Object.defineProperty(window, name, {get() { throw new DOMException("The access is denied for this document.", "SecurityError"); }});
}`

// With storage blocked the widget still shows requests, takes typing and
// sends answers; only what storage gives (a draft kept over a reload)
// is missing.
func TestBlockedStorage(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, blockStorage)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	sendNote(t, ctx, out)
	// A reload has no fragment and nothing stored: it says the link is
	// incomplete rather than failing.
	do(t, ctx, "reload", chromedp.Reload())
	waitJS(t, ctx, "the missing-link message", `document.body.innerText.includes("no access key")`)
}
