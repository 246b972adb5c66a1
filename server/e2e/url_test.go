package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/formbridge/formbridge/server/hub"
)

const connectURL = "https://accounts.example.com/connect?plan=team&state=x1"

const urlParams = `{"mode":"url","message":"Connect your calendar","elicitationId":"el-42","url":"` + connectURL + `"}`

// recordOpen replaces window.open with one that records how the widget
// calls it and hands back a stand-in tab recording what the widget does
// with it, so no real tab opens (TestURLModeOpensTabWithoutOpener opens
// one).
const recordOpen = `(() => {
	window.__opens = [];
	window.open = function (...args) {
		const tab = { opener: window, location: { replace(url) { tab.url = url; } } };
		window.__opens.push({ args: args.map(String), tab });
		return tab;
	};
	return true;
})()`

func TestURLMode(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	out := b.Elicit(t, urlParams, nil)
	waitForm(t, ctx)

	if got := eval[string](t, ctx, `document.querySelector("[data-url]").dataset.url`); got != connectURL {
		t.Errorf("data-url = %q, want the full URL %q", got, connectURL)
	}
	if got := eval[string](t, ctx, `document.querySelector("[data-url]").textContent.trim()`); got != connectURL {
		t.Errorf("the card shows %q, want the full URL %q", got, connectURL)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("form[data-elicitation-id] a").length`); n != 0 {
		t.Errorf("the card has %d links; no text may become a link", n)
	}
	// Nothing is opened, and nothing is answered, without the person.
	time.Sleep(time.Second)
	if n := eval[int](t, ctx, `window.__opens.length`); n != 0 {
		t.Fatalf("the widget opened the link %d times before any click", n)
	}
	noResultYet(t, out, "before Open")

	do(t, ctx, "open", chromedp.Click(action("open")))
	wantResult(t, await(t, ctx, out), `{"action":"accept"}`)
	// A blank tab of this page's origin, its opener cleared, then sent to
	// the link: window.open with noopener would not say whether it opened.
	opens := eval[string](t, ctx, `JSON.stringify(window.__opens.map(o => [o.args.join(" "), o.tab.opener === null, o.tab.url]))`)
	if want := `[[" _blank",true,"` + connectURL + `"]]`; opens != want {
		t.Errorf("window.open calls = %s, want %s", opens, want)
	}
	do(t, ctx, "waiting", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="waiting"]`)))

	if err := b.Hub.Complete(hub.DefaultChannel, "el-42"); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	do(t, ctx, "completed", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="completed"]`)))
}

func TestURLModeDecline(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	out := b.Elicit(t, urlParams, nil)
	waitForm(t, ctx)
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
	if n := eval[int](t, ctx, `window.__opens.length`); n != 0 {
		t.Errorf("declining opened the link")
	}
}

// TestLinkAndFormTakeTurns: a form and a link wait together, and the
// person moves between them. Each opened after the first takes focus on
// its own title, what was typed into the form survives a visit to the
// link, and each answer reaches its own caller.
func TestLinkAndFormTakeTurns(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	form := b.Elicit(t, `{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`, nil)
	formID := waitForm(t, ctx)
	link := b.Elicit(t, urlParams, nil)
	do(t, ctx, "type without sending, then open the link from the list",
		chromedp.WaitVisible(chromedp.CSS(`.fb-queue-item:not([aria-current])`)),
		chromedp.SendKeys(field("name", "textarea, input"), "Ada"),
		chromedp.Click(chromedp.CSS(`.fb-queue-item:not([aria-current])`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-url]`)),
	)
	waitJS(t, ctx, "focus on the link's title", `document.activeElement?.matches(".fb-url-card h2.fb-title") === true`)
	do(t, ctx, "back to the form",
		chromedp.Click(chromedp.CSS(`.fb-queue-item[data-request-id=`+css(formID)+`]`)),
		chromedp.WaitVisible(field("name", "textarea, input")),
	)
	waitJS(t, ctx, "focus on the form's title", `document.activeElement?.matches('form[data-elicitation-id=`+css(formID)+`] h2.fb-title') === true`)
	if got := eval[string](t, ctx, `document.querySelector("[data-field=name] textarea, [data-field=name] input").value`); got != "Ada" {
		t.Errorf("after a visit to the link the name box holds %q, want what was typed, Ada", got)
	}
	do(t, ctx, "send the form", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, form), `{"action":"accept","content":{"name":"Ada"}}`)

	do(t, ctx, "the link opens next", chromedp.WaitVisible(chromedp.CSS(`[data-url]`)))
	waitJS(t, ctx, "focus on the link's title", `document.activeElement?.matches(".fb-url-card h2.fb-title") === true`)
	do(t, ctx, "press Enter, meant for the form", chromedp.KeyEvent(kb.Enter))
	noResultYet(t, link, "after an Enter meant for the form")
	if n := eval[int](t, ctx, `window.__opens.length`); n != 0 {
		t.Fatalf("an Enter meant for the form opened the link")
	}
	do(t, ctx, "decline the link", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, link), `{"action":"decline"}`)
}

// TestURLModeOpensTabWithoutOpener: Open link opens a real tab on the
// link, which cannot reach back to the widget and is not told where the
// person came from.
func TestURLModeOpensTabWithoutOpener(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	// The linked site, on this machine (http is allowed there): it notes
	// the Referer the browser sent.
	referer := make(chan string, 4)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/linked-page" {
			referer <- r.Referer()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>Linked</title><p>Signed in.</p>")
	}))
	defer site.Close()
	link := site.URL + "/linked-page?plan=team"
	out := b.Elicit(t, `{"mode":"url","message":"Connect","elicitationId":"el-7","url":"`+link+`"}`, nil)
	waitForm(t, ctx)
	opened := chromedp.WaitNewTarget(ctx, func(info *target.Info) bool { return strings.Contains(info.URL, "/linked-page") })
	do(t, ctx, "open", chromedp.Click(action("open")))
	wantResult(t, await(t, ctx, out), `{"action":"accept"}`)
	var id target.ID
	select {
	case id = <-opened:
	case <-time.After(stepTimeout):
		t.Fatal("no tab opened on the link")
	}
	tab, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
	defer cancel()
	// Read through Poll: chromedp's Evaluate waits for an execution context
	// it never learns of in a tab the page opened.
	tctx, cancelRead := context.WithTimeout(tab, stepTimeout)
	defer cancelRead()
	got, err := chromedp.Run(tctx, chromedp.Poll[string](`document.readyState === "complete" && location.pathname === "/linked-page" && JSON.stringify([location.href, window.opener === null, document.referrer])`))
	if err != nil {
		t.Fatalf("reading the opened tab: %v", err)
	}
	if want := `["` + link + `",true,""]`; got != want {
		t.Errorf("the opened tab: %s, want %s (its address, no opener, no referrer)", got, want)
	}
	if r := <-referer; r != "" {
		t.Errorf("the linked site was told the person came from %q", r)
	}
}

// TestURLModeBlockedTab: when the browser does not open the tab (a
// pop-up blocker), nothing is answered and the person is told; once the
// browser lets it, Open link works.
func TestURLModeBlockedTab(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, `(() => { window.open = () => null; return true; })()`)
	out := b.Elicit(t, urlParams, nil)
	waitForm(t, ctx)
	do(t, ctx, "open, blocked", chromedp.Click(action("open")))
	waitJS(t, ctx, "the person told", `document.querySelector("[role=alert].fb-send-error")?.textContent.includes("blocked the new tab") === true`)
	noResultYet(t, out, "after a blocked tab")
	eval[bool](t, ctx, recordOpen)
	do(t, ctx, "open again", chromedp.Click(action("open")))
	wantResult(t, await(t, ctx, out), `{"action":"accept"}`)
}

// TestURLModeAddressBrowserRefuses: a link the browser cannot parse
// opens nothing, answers nothing and says so, and the widget goes on
// working. The bridge refuses the ones it knows of (a host of five
// numbers); a browser may still be stricter than it (or an older
// bridge laxer), which the page's URL.canParse stands in for here.
func TestURLModeAddressBrowserRefuses(t *testing.T) {
	b := StartBridge(t, nil)
	refused := <-b.Elicit(t, `{"mode":"url","message":"Connect","elicitationId":"el-7","url":"https://1.2.3.4.5/connect"}`, nil)
	if refused.Err == nil || !strings.Contains(refused.Err.Error(), "site name is not valid") {
		t.Errorf("the bridge passed a host of five numbers: %+v, %v", refused.Result, refused.Err)
	}

	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	eval[bool](t, ctx, `(() => { URL.canParse = (u) => !u.includes("/connect"); return true; })()`)
	out := b.Elicit(t, `{"mode":"url","message":"Connect","elicitationId":"el-8","url":"https://example.com/connect"}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "open", chromedp.Click(action("open")))
	waitJS(t, ctx, "the person told", `document.querySelector("[role=alert].fb-send-error")?.textContent.includes("cannot be opened") === true`)
	noResultYet(t, out, "after an address the browser refuses")
	if n := eval[int](t, ctx, `window.__opens.length`); n != 0 {
		t.Errorf("window.open was called %d times for an address the browser refuses", n)
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
}

// TestWaitingNoticesBounded: a server need never say complete, so the
// "Waiting for you to finish in the other tab" notices of a day's links
// must not pile up above the open request.
func TestWaitingNoticesBounded(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[bool](t, ctx, recordOpen)
	for i := range 12 {
		out := b.Elicit(t, fmt.Sprintf(`{"mode":"url","message":"Connect service %d","elicitationId":"el-%d","url":"https://accounts.example.com/connect?n=%d"}`, i, i, i), nil)
		waitJS(t, ctx, "the link", fmt.Sprintf(`document.querySelector("form[data-elicitation-id] button[data-action=open]") !== null && document.querySelector(".fb-message")?.textContent.includes("service %d")`, i))
		eval[bool](t, ctx, `(document.querySelector("button[data-action=open]").click(), true)`)
		wantResult(t, await(t, ctx, out), `{"action":"accept"}`)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll(".fb-notice").length`); n > 6 {
		t.Errorf("%d notices after 12 links were opened; the list grows with every link", n)
	}
}
