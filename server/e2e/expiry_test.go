package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/hub"
)

func TestExpiry(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Quick: approve?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}`,
		&hub.ElicitOptions{Timeout: 3 * time.Second})
	id := waitForm(t, ctx)
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
	do(t, ctx, "expired notice",
		chromedp.WaitVisible(chromedp.CSS(`[data-outcome="expired"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
}
