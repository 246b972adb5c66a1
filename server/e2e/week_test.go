package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// An approver's tab is left open for a working week: hundreds of requests
// come and go. These tests look at what it keeps of requests gone.

// TestAnsweredDraftsLeaveStorage answers requests one after another with
// the mouse, each after typing in it: once they are answered, nothing
// typed may stay in the tab's storage. A field left by pressing a button
// is saved 100 ms after the pointer comes up (requestCard.onPointerRelease);
// on a bridge nearby the request had settled by then, and its draft,
// removed at the settle, was written again, to stay until the next
// reconnect (every answered request of a day without one).
func TestAnsweredDraftsLeaveStorage(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	const n = 12
	for i := range n {
		out := b.Elicit(t, noteQuestion, nil)
		id := waitForm(t, ctx)
		setValue(t, ctx, field("note", "textarea, input"), "typed for the draft")
		do(t, ctx, "answer", chromedp.Click(action([]string{"accept", "decline", "cancel"}[i%3])))
		await(t, ctx, out)
		waitJS(t, ctx, "the request leaves", `!document.querySelector('form[data-elicitation-id=`+css(id)+`]')`)
	}
	time.Sleep(time.Second) // past the 100 ms a field left by a press waits
	left := eval[[]string](t, ctx, `Object.keys(sessionStorage).filter((k) => k.startsWith("formbridge.draft."))`)
	if len(left) > 0 {
		t.Errorf("after %d requests answered, the tab's storage keeps %d drafts: %q", n, len(left), left)
	}
}
