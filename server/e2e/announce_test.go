package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/hub"
)

// What a screen reader hears when a request leaves. Chromium tells a
// screen reader about a change inside a live region only when the region
// was in the accessibility tree before the change (a region that was
// display: none, and is shown together with its new text, is news to
// nobody), and then reads the nodes that were added or whose text
// changed (the whole region when it is atomic).

// markLiveRegions marks (data-was-live) every element that is a live
// region in the accessibility tree now, so that a later check can ask
// whether some text reached a region that was there beforehand.
func markLiveRegions(t *testing.T, ctx context.Context) int {
	t.Helper()
	tree, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatalf("the accessibility tree: %v", err)
	}
	marked := 0
	for _, n := range tree.Nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 {
			continue
		}
		live := false
		for _, p := range n.Properties {
			if p.Name == accessibility.PropertyNameLive && p.Value != nil && string(p.Value.Value) != `"off"` {
				live = true
			}
		}
		if !live {
			continue
		}
		obj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: n.BackendDOMNodeID})
		if err != nil {
			t.Fatalf("resolving a live region: %v", err)
		}
		if _, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: `function() { this.dataset.wasLive = "1"; }`, ObjectID: obj.Object.ObjectID,
		}); err != nil {
			t.Fatalf("marking a live region: %v", err)
		}
		marked++
	}
	return marked
}

// TestFirstNoticeIsAnnounced: two requests wait; the person is typing in
// the open one when the other is called off by its server. Focus stays
// where it is (rightly), so the notice that says so must reach a screen
// reader through a live region, one that was in the accessibility tree
// before the notice came. The notices' own region is display: none while
// it is empty (.fb-notices:empty), so the first notice of a page is shown
// together with its region and announced to no one.
func TestFirstNoticeIsAnnounced(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	callerCtx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	go b.Hub.Elicit(callerCtx, hub.DefaultChannel, Requester, json.RawMessage(`{"message":"Rotate the API keys?","requestedSchema":{"type":"object","properties":{}}}`), nil)
	waitJS(t, ctx, "the list of two", `document.querySelectorAll(".fb-queue-item").length === 2`)
	do(t, ctx, "type in the open request", chromedp.SendKeys(field("note", "textarea, input"), "looks fine"))
	if n := markLiveRegions(t, ctx); n == 0 {
		t.Fatal("no live region in the page at all")
	}
	giveUp()
	do(t, ctx, "the notice", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="cancelled"]`)))
	focusIn(t, ctx, `[data-field="note"]`, "after a request behind the open one was called off")
	const sentence = "was called off before you answered"
	said := eval[[]string](t, ctx, `[...document.querySelectorAll("[data-was-live]")].map((e) => e.textContent).filter((s) => s.includes(`+strconv.Quote(sentence)+`))`)
	if len(said) == 0 {
		t.Errorf("the notice %q is in no live region that was in the accessibility tree before it came, so no screen reader hears it; live regions then: %q",
			eval[string](t, ctx, `document.querySelector('[data-outcome="cancelled"]').textContent`),
			eval[[]string](t, ctx, `[...document.querySelectorAll("[data-was-live]")].map((e) => e.className + ": " + e.textContent)`))
	}
	do(t, ctx, "skip", chromedp.Click(action("cancel")))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}

// recordLiveChanges records, from now on, what each change inside a live
// region gives a screen reader to read: the whole region's text when the
// region is atomic (role status or alert, or aria-atomic), else the text
// of each node added or changed.
const recordLiveChanges = `(() => {
	window.liveSaid = [];
	const region = (n) => (n.nodeType === 1 ? n : n.parentElement)?.closest('[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]');
	new MutationObserver((ms) => {
		for (const m of ms) {
			const r = region(m.target);
			if (!r) continue;
			const atomic = r.getAttribute("aria-atomic") === "true" || (!r.hasAttribute("aria-atomic") && ["status", "alert"].includes(r.getAttribute("role")));
			if (atomic) { window.liveSaid.push(r.textContent); continue; }
			if (m.type === "characterData") window.liveSaid.push(m.target.data);
			for (const n of m.addedNodes) window.liveSaid.push(n.textContent);
		}
	}).observe(document.body, {subtree: true, childList: true, characterData: true});
	return true;
})()`

// TestNoticeAnnouncesOnlyItself: the person answers three requests one
// after another. Each answer's notice goes on top of the older ones; go-app
// reuses the notices' elements by position, so a live region around them
// had every older notice's text rewritten (or its row added again at the
// end), and a screen reader read them all again after each answer: "Deploy
// gamma? … Deploy beta? … You declined. Travel Desk has been told. Deploy
// alpha? OK", as if three things had just happened. The newest is said
// once, by focus or by the status region.
func TestNoticeAnnouncesOnlyItself(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	asks := []string{"Deploy alpha?", "Deploy beta?", "Deploy gamma?"}
	for i, msg := range asks {
		out := b.Elicit(t, `{"message":`+strconv.Quote(msg)+`,"requestedSchema":{"type":"object","properties":{"note":{"type":"string","title":"Note"}}}}`, nil)
		waitForm(t, ctx)
		if i == len(asks)-1 {
			eval[bool](t, ctx, recordLiveChanges)
		}
		do(t, ctx, "decline", chromedp.Click(action("decline")))
		await(t, ctx, out)
		waitJS(t, ctx, "the notice of "+msg, `[...document.querySelectorAll(".fb-notice")].some((n) => n.textContent.includes(`+strconv.Quote(msg)+`))`)
	}
	waitJS(t, ctx, "the page to settle", `document.getAnimations().every((a) => a.playState !== "running")`)
	// Focus moves in go-app's frame after the one that showed the notice.
	waitJS(t, ctx, "the third notice said", `document.activeElement?.closest(".fb-notice")?.textContent.includes("Deploy gamma?") || window.liveSaid.some((s) => s.includes("Deploy gamma?"))`)
	said := eval[[]string](t, ctx, `window.liveSaid`)
	heard := strings.Join(said, " | ")
	// The last request leaving takes focus to its notice, which a screen
	// reader then reads; the status region must not say it a second time.
	focused := eval[string](t, ctx, `document.activeElement.closest(".fb-notice")?.textContent ?? ""`)
	byFocus, byRegion := strings.Contains(focused, "Deploy gamma?"), strings.Contains(heard, "Deploy gamma?")
	switch {
	case !byFocus && !byRegion:
		t.Errorf("the third answer's notice was neither focused nor in a live region; read out: %q", said)
	case byFocus && byRegion:
		t.Errorf("the third answer's notice is said twice: it has focus, and a live region gave it too: %q", said)
	}
	for _, old := range asks[:2] {
		if strings.Contains(heard, old) {
			t.Errorf("after the third answer a screen reader is given the older notice about %q again; read out: %q", old, said)
		}
	}
}

// TestSameNoticeTwiceSaidTwice: the person is typing in one request
// while two others from the same server, asking the same thing, wait
// behind it. The server calls both off, one after the other. Two notices
// appear, and a screen reader must hear of both, though the status
// region is given the same words twice.
func TestSameNoticeTwiceSaidTwice(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	const ask = `{"message":"Rotate the API keys?","requestedSchema":{"type":"object","properties":{}}}`
	ctx1, giveUp1 := context.WithCancel(context.Background())
	defer giveUp1()
	go b.Hub.Elicit(ctx1, hub.DefaultChannel, Requester, json.RawMessage(ask), nil)
	waitJS(t, ctx, "the list of two", `document.querySelectorAll(".fb-queue-item").length === 2`)
	ctx2, giveUp2 := context.WithCancel(context.Background())
	defer giveUp2()
	go b.Hub.Elicit(ctx2, hub.DefaultChannel, Requester, json.RawMessage(ask), nil)
	waitJS(t, ctx, "the list of three", `document.querySelectorAll(".fb-queue-item").length === 3`)
	do(t, ctx, "type in the open request", chromedp.SendKeys(field("note", "textarea, input"), "looks fine"))
	eval[bool](t, ctx, recordLiveChanges)
	giveUp1()
	waitJS(t, ctx, "the first notice", `document.querySelectorAll('[data-outcome="cancelled"]').length === 1`)
	giveUp2()
	waitJS(t, ctx, "the second notice", `document.querySelectorAll('[data-outcome="cancelled"]').length === 2`)
	waitJS(t, ctx, "the page to settle", `document.getAnimations().every((a) => a.playState !== "running")`)
	focusIn(t, ctx, `[data-field="note"]`, "after two requests behind the open one were called off")
	said := eval[[]string](t, ctx, `window.liveSaid`)
	n := 0
	for _, s := range said {
		if strings.Contains(s, "called off") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("two requests were called off, a screen reader was told %d times; read out: %q", n, said)
	}
	do(t, ctx, "skip", chromedp.Click(action("cancel")))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}

// TestDeadlineAnnounced: the person is writing an answer when the
// request enters its last 5 minutes. The card's countdown appears and
// changes each minute without a word to a screen reader, whose user
// learnt that the request had closed only once it had. Crossing into the
// last 5 minutes (and the last one) is said once, in a live region that
// was there before, and focus stays in the field.
func TestDeadlineAnnounced(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, &hub.ElicitOptions{Timeout: 5*time.Minute + 3*time.Second})
	waitForm(t, ctx)
	do(t, ctx, "type in the open request", chromedp.SendKeys(field("note", "textarea, input"), "looks fine"))
	if n := markLiveRegions(t, ctx); n == 0 {
		t.Fatal("no live region in the page at all")
	}
	eval[bool](t, ctx, recordLiveChanges)
	const warning = "5 minutes left to answer this request."
	waitJS(t, ctx, "the countdown", `document.querySelector(".fb-countdown") !== null`)
	waitJS(t, ctx, "the warning in a live region that was there before",
		`[...document.querySelectorAll("[data-was-live]")].some((e) => e.textContent.includes(`+strconv.Quote(warning)+`))`)
	waitJS(t, ctx, "a few more ticks", `new Promise((ok) => setTimeout(() => ok(true), 2500))`)
	n := 0
	said := eval[[]string](t, ctx, `window.liveSaid`)
	for _, s := range said {
		n += strings.Count(s, "left to answer")
	}
	if n != 1 {
		t.Errorf("the last 5 minutes began once, a screen reader was told %d times; read out: %q", n, said)
	}
	focusIn(t, ctx, `[data-field="note"]`, "after the warning")
	do(t, ctx, "skip", chromedp.Click(action("cancel")))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}
