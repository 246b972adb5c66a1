package e2e

import (
	"testing"
	"time"

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
