package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/hub"
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

// TestDraftsOfRequestsSettledAwayGo: drafts were removed only when their
// request left an open page, so those of requests that settled while
// the tab was away (reloaded, discarded and restored) stayed for the
// tab's life, until its storage was full and no new draft was kept.
func TestDraftsOfRequestsSettledAwayGo(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	const n = 3
	var withdraw []context.CancelFunc
	for range n {
		c, cancel := context.WithCancel(context.Background())
		withdraw = append(withdraw, cancel)
		go b.Hub.Elicit(c, hub.DefaultChannel, Requester, json.RawMessage(noteQuestion), nil)
	}
	waitJS(t, ctx, "every request", fmt.Sprintf(`document.querySelectorAll(".fb-queue-item").length === %d`, n))
	drafts := `Object.keys(sessionStorage).filter((k) => k.startsWith("formbridge.draft.")).length`
	waitJS(t, ctx, "the oldest open", `document.querySelector(".fb-queue-item").ariaCurrent === "true"`)
	for i := range n {
		if i > 0 {
			// The request opens, and in go-app's next frame focus moves
			// from its entry to its title (see focusWait): keys sent
			// before then would go there.
			entry := fmt.Sprintf(`document.querySelectorAll(".fb-queue-item")[%d]`, i)
			eval[bool](t, ctx, `(() => { const b = `+entry+`; b.focus(); b.click(); return true; })()`)
			waitJS(t, ctx, "it opens and takes focus", `document.activeElement?.closest("form[data-elicitation-id]")?.dataset.elicitationId === `+entry+`.dataset.requestId`)
		}
		do(t, ctx, "type", chromedp.SendKeys(field("note", "textarea, input"), "draft"))
		waitJS(t, ctx, "its draft kept", fmt.Sprintf(`%s === %d`, drafts, i+1))
	}
	do(t, ctx, "leave the page", chromedp.Navigate("about:blank"))
	for _, cancel := range withdraw {
		cancel()
	}
	for deadline := time.Now().Add(5 * time.Second); b.Hub.Pending(hub.DefaultChannel) != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the requests were not withdrawn")
		}
	}
	do(t, ctx, "come back", chromedp.Navigate(b.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
	waitJS(t, ctx, "the empty page", `document.body.innerText.includes("Nothing to answer")`)
	if left := eval[int](t, ctx, drafts); left != 0 {
		t.Errorf("%d drafts of requests that no longer exist stay in the tab's storage", left)
	}
}

// TestDraftKeptAcrossChannelSwitch: a chat app gives each conversation
// its own channel and points its <formbridge-widget> at the one shown.
// The person half-fills a form in conversation A, looks at conversation
// B, and comes back to A: what they typed must still be there. The
// frames share the tab's session storage (same origin, same tab), so
// B's Synced, which lists only B's requests, must not remove A's drafts.
func TestDraftKeptAcrossChannelSwitch(t *testing.T) {
	ctx, page, b := hostPage(t, `<formbridge-widget token="{token}"></formbridge-widget>
<script>
  window.heard = [];
  document.querySelector("formbridge-widget").addEventListener("formbridge:connection", (e) => heard.push(e.detail.state));
</script>`)
	do(t, ctx, "open the page", chromedp.Navigate(page+"/"))
	waitJS(t, ctx, "the widget to connect", `heard.includes("online")`)
	b.Elicit(t, noteQuestion, nil)
	frame := frameContext(t, ctx, b.URL+"/")
	waitForm(t, frame)
	focusFrame(t, ctx, frame)
	do(t, frame, "type half an answer", chromedp.SendKeys(field("note", "textarea, input"), "half of it"))
	waitJS(t, frame, "the draft kept", `Object.keys(sessionStorage).some((k) => k.startsWith("formbridge.draft."))`)

	other, err := b.Hub.CreateChannel("")
	if err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `heard.length = 0; document.querySelector("formbridge-widget").setAttribute("token", `+strconv.Quote(other.Token)+`); true`)
	waitJS(t, ctx, "conversation B's widget to connect", `heard.includes("online")`)
	frame = frameContext(t, ctx, b.URL+"/")
	waitJS(t, frame, "B's empty page", `document.body.innerText.includes("Nothing to answer")`)

	eval[bool](t, ctx, `heard.length = 0; document.querySelector("formbridge-widget").setAttribute("token", `+strconv.Quote(b.Token)+`); true`)
	waitJS(t, ctx, "conversation A's widget to connect", `heard.includes("online")`)
	frame = frameContext(t, ctx, b.URL+"/")
	waitForm(t, frame)
	if got := eval[string](t, frame, `document.querySelector("[data-field=note] textarea, [data-field=note] input").value`); got != "half of it" {
		t.Errorf("back in conversation A, the note reads %q; want what the person typed, %q", got, "half of it")
	}
}
