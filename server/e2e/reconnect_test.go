package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestReconnectKeepsTypedValues cuts the connection while the person is
// typing: the widget goes offline, comes back on its own, gets the
// request again, and keeps what was typed.
func TestReconnectKeepsTypedValues(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Shipping details","requestedSchema":{"type":"object","properties":{
		"street":{"type":"string"},"city":{"type":"string"},"express":{"type":"boolean"}},"required":["street","city"]}}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "type", chromedp.SendKeys(field("street", "textarea, input"), "12 Rua Augusta"), chromedp.Click(option("express", "Yes")))

	before := b.Upgrades()
	b.DropWidgets()
	do(t, ctx, "goes offline", chromedp.WaitVisible(chromedp.CSS(`[data-connection="offline"], [data-connection="connecting"]`)))
	do(t, ctx, "comes back", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
	if after := b.Upgrades(); after <= before {
		t.Fatalf("no new connection after the drop (%d before, %d after)", before, after)
	}
	waitForm(t, ctx)
	if got := eval[string](t, ctx, `document.querySelector('[data-field="street"] textarea, [data-field="street"] input').value`); got != "12 Rua Augusta" {
		t.Errorf("after the reconnect the street reads %q, want what was typed", got)
	}
	do(t, ctx, "finish", chromedp.SendKeys(field("city", "textarea, input"), "Lisboa"), chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"street":"12 Rua Augusta","city":"Lisboa","express":true}}`)
}

// TestReloadKeepsTypedValues reloads the page mid-typing: the draft comes
// back from sessionStorage.
func TestReloadKeepsTypedValues(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Your name","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"]}}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "type", chromedp.SendKeys(field("name", "textarea, input"), "Ada"))
	// A marker that only survives if the page was not really reloaded.
	eval[bool](t, ctx, `window.__notReloaded = true`)
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
	if eval[bool](t, ctx, `window.__notReloaded === true`) {
		t.Fatal("the page was not reloaded")
	}
	waitForm(t, ctx)
	if got := eval[string](t, ctx, `document.querySelector('[data-field="name"] textarea, [data-field="name"] input').value`); got != "Ada" {
		t.Errorf("after a reload the name reads %q, want what was typed", got)
	}
	do(t, ctx, "finish", chromedp.SendKeys(field("age", "input"), "36"), chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"name":"Ada","age":36}}`)
}
