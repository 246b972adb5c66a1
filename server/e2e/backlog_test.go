package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// countQueueTitleWrites counts, from before the page's own scripts run,
// the renders that rewrite the queue's heading ("12 requests waiting").
const countQueueTitleWrites = `(() => {
  window.__titleWrites = 0;
  new MutationObserver((rs) => {
    for (const r of rs) {
      const n = r.target.nodeType === 3 ? r.target.parentElement : r.target;
      if (n?.closest?.(".fb-queue-title")) window.__titleWrites++;
    }
  }).observe(document, {subtree: true, childList: true, characterData: true});
})()`

// TestBacklogRendersOnce: a page opened on a channel's 100 waiting
// requests (the default MaxPending) rendered the whole page once per
// request as they arrived, each time with the longer list: quadratic in
// the backlog, and the form showed after ~2 s instead of ~0.7. Then,
// still at each of go-app's frames while they came: 10 to 27 times.
// The list's heading is now written once, with the whole list.
func TestBacklogRendersOnce(t *testing.T) {
	b := StartBridge(t, nil)
	const n = 100
	for range n {
		b.Hub.Submit(context.Background(), hub.DefaultChannel, Requester, json.RawMessage(noteQuestion), nil, func(*wire.ElicitResult, error) {})
	}
	for deadline := time.Now().Add(10 * time.Second); b.Hub.Pending(hub.DefaultChannel) != n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pending = %d, want %d", b.Hub.Pending(hub.DefaultChannel), n)
		}
	}
	ctx := NewBrowser(t)
	runFirst(t, ctx, countQueueTitleWrites)
	openWidget(t, ctx, b)
	waitJS(t, ctx, "the first form and the whole list", fmt.Sprintf(`document.querySelector("form[data-elicitation-id] [data-field=note]") != null && document.querySelectorAll(".fb-queue-item").length === %d`, n))
	if writes := eval[int](t, ctx, `window.__titleWrites`); writes > 2 {
		t.Errorf("the queue's heading was rewritten %d times while a backlog of %d arrived; want it written once, with the whole list", writes, n)
	}
}
