package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
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

// netConditions are the params of DevTools' Network.emulateNetworkConditions,
// which cdproto no longer lists but Chromium still serves; unlike its
// successors it also moves navigator.onLine and fires online and offline.
type netConditions struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

var emulateNetwork = cdp.Command[netConditions, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

// setOffline takes the page's network away (new connections fail) or
// gives it back, as a phone in a tunnel.
func setOffline(t *testing.T, ctx context.Context, offline bool) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulateNetwork, netConditions{Offline: offline, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatalf("network offline=%v: %v", offline, err)
	}
}

// TestOnlineReconnectsAtOnce: a phone loses its network, and the
// bridge's connection with it; a request comes meanwhile. The widget
// failed to reconnect while offline, each wait longer (1, 2, 4, 8 s,
// up to 30 s), and when the network came back it waited out the current
// one: on a real phone 5 to 25 s of a request kept off the screen. The
// browser's online event now has it reconnect at once.
func TestOnlineReconnectsAtOnce(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	setOffline(t, ctx, true)
	b.DropWidgets()
	do(t, ctx, "goes offline", chromedp.WaitVisible(chromedp.CSS(`[data-connection="offline"], [data-connection="connecting"]`)))
	out := b.Elicit(t, noteQuestion, nil)
	// Redials fail 1, 2 and 4 s apart (each ±20%): the third by 8.4 s,
	// and the next 6.4 to 9.6 s after it, 12 s after the drop at the
	// soonest. Back online at 9 s, the backoff alone would show the
	// request 3 s later or more.
	time.Sleep(9 * time.Second)
	setOffline(t, ctx, false)
	back := time.Now()
	waitForm(t, ctx)
	if d := time.Since(back); d > 2*time.Second {
		t.Errorf("the network came back, and the request waiting since showed %v later: the widget waited out its backoff", d.Round(time.Millisecond))
	}
	sendNote(t, ctx, out)
}
