package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTwoTabsOneWins: both tabs show the request; the first answer is
// delivered, and the other tab says it was answered elsewhere.
func TestTwoTabsOneWins(t *testing.T) {
	b := StartBridge(t, nil)
	first, second := twoWidgets(t, b, "tab 2")
	out := b.Elicit(t, `{"message":"Who approves?","requestedSchema":{"type":"object","properties":{"who":{"type":"string"}},"required":["who"]}}`, nil)
	id1, id2 := waitForm(t, first), waitForm(t, second)
	if id1 != id2 {
		t.Fatalf("tabs show different requests: %s and %s", id1, id2)
	}
	do(t, second, "type in tab 2", chromedp.SendKeys(field("who", "textarea, input"), "Grace"))
	do(t, first, "answer in tab 1", chromedp.SendKeys(field("who", "textarea, input"), "Ada"), chromedp.Click(action("accept")))
	wantResult(t, await(t, first, out), `{"action":"accept","content":{"who":"Ada"}}`)

	do(t, first, "tab 1 confirmation", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="answered"]`)))
	do(t, second, "tab 2 told", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="answered-elsewhere"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id1)+`]`)))
}
