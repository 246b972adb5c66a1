package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestRefusedTokenStops: a link with a wrong token is refused once; the
// widget says so and does not keep knocking.
func TestRefusedTokenStops(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	do(t, ctx, "open with a wrong token",
		chromedp.Navigate(b.URL+"/#token=not-the-token"),
		chromedp.WaitVisible(chromedp.CSS(`[data-connection="offline"]`)),
	)
	// The first retry would come after 1 s; wait well past the second.
	time.Sleep(4 * time.Second)
	if n := b.Upgrades(); n != 1 {
		t.Errorf("the widget connected %d times with a refused token, want 1", n)
	}
	if got := eval[string](t, ctx, `document.querySelector("[data-connection]").dataset.connection`); got != "offline" {
		t.Errorf("data-connection = %q, want offline", got)
	}
	if eval[bool](t, ctx, `location.href.includes("not-the-token")`) {
		t.Error("the token stays in the address bar")
	}
	if got := eval[string](t, ctx, `sessionStorage.getItem("formbridge.link") || ""`); strings.Contains(got, "not-the-token") {
		t.Errorf("the refused token is kept for a reload: %s", got)
	}

	// A reload says the key was refused (not that the link had none),
	// and does not try it again.
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-connection="offline"]`)))
	waitJS(t, ctx, "the refusal said again", `document.body.innerText.includes("was not accepted")`)
	if n := b.Upgrades(); n != 1 {
		t.Errorf("after a reload the widget has connected %d times, want 1", n)
	}

	// The person opens the new link they were sent in the same tab:
	// only the fragment changes, and the page connects with it.
	eval[string](t, ctx, `location.hash = "#token=`+b.Token+`"`)
	do(t, ctx, "connected", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
	if eval[bool](t, ctx, `location.href.includes("token=")`) {
		t.Error("the new token stays in the address bar")
	}
}

// TestTokenLeavesAddressBar: once the page is up, the token is taken out
// of the address bar and kept in the tab's session storage, from where a
// reload reads it.
func TestTokenLeavesAddressBar(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	waitJS(t, ctx, "the token to leave the address bar", `!location.href.includes("token=")`)
	if got := eval[string](t, ctx, `JSON.parse(sessionStorage.getItem("formbridge.link") || "{}").token || ""`); got != b.Token {
		t.Errorf("session storage keeps token %q, want the link's", got)
	}
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
}
