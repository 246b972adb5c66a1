package e2e

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The tests in this file run Chromium with one of its features taken
// away or made to behave as another browser's does, for what the
// widget's people use besides it: Safari on iPhones (16.4 and later) and
// Firefox ESR (115 and later) on company desktops.

// illegalNotification is Notification as a phone's browser has it:
// Chrome on Android (and Safari in an iPhone's Home Screen web app,
// whatwg/notifications#210) let a page ask for, and be granted,
// permission, but refuse to construct a notification in the page
// ("use ServiceWorkerRegistration.showNotification() instead"). The
// page reads as hidden (the phone in a pocket), which is when the
// widget notifies.
const illegalNotification = `
Object.defineProperty(Document.prototype, "hidden", {get: () => true});
window.__constructed = 0;
window.Notification = class {
	static get permission() { return "granted"; }
	static requestPermission() { return Promise.resolve("granted"); }
	constructor() {
		window.__constructed++;
		throw new TypeError("Failed to construct 'Notification': Illegal constructor. Use ServiceWorkerRegistration.showNotification() instead.");
	}
};`

// TestNotificationConstructorRefused: an approver on a phone turned
// notifications on; a request arrives while the page is in the
// background. The browser refuses a page's own notification: the
// request must still show and be answered.
func TestNotificationConstructorRefused(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, illegalNotification)
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	waitJS(t, ctx, "the widget to try to notify", `window.__constructed > 0`)
	waitForm(t, ctx)
	sendNote(t, ctx, out)
}

// noRelativeColour makes the page's CSS parser refuse relative colour
// syntax ("lch(from …)"), as Firefox before 128 does (Firefox ESR 115).
// Only CSS.supports can be changed: the widget decides with it.
const noRelativeColour = `(() => {
	const real = CSS.supports.bind(CSS);
	CSS.supports = (...a) => !a.some((v) => /\bfrom\b/.test(String(v))) && real(...a);
	return true;
})()`

// TestEmbedThemeLabelWithoutRelativeColour: a host page themes the
// widget with a light primary and no label colour, as the chat example
// does its green. In Firefox ESR 115 the widget cannot use its relative
// colour for the label, and keeps the palette's: white on the light
// primary, unreadable Send, Open link and Yes buttons.
func TestEmbedThemeLabelWithoutRelativeColour(t *testing.T) {
	ctx := NewBrowser(t)
	chat := serveDir(t, WebDir(), "/")
	b := startOriginBridge(t, chat)
	colorScheme(t, ctx, "light")
	do(t, ctx, "open the chat example", chromedp.Navigate(chat+"/examples/chat.html#token="+b.Token+"&widget="+b.URL+"/"))
	waitJS(t, ctx, "the widget to connect", `window.chatEvents && chatEvents.some((e) => e.type === "connection" && e.state === "online")`)
	frame := frameContext(t, ctx, b.URL+"/")
	eval[bool](t, frame, noRelativeColour)

	const labelJS = `(() => {
		const b = document.createElement("button");
		b.className = "fb-primary";
		document.body.append(b);
		const s = getComputedStyle(b), c = s.color, bg = s.backgroundColor;
		b.remove();
		return c + " on " + bg;
	})()`
	for _, tc := range []struct{ mode, primary, want string }{
		{"light", "#9fe0c0", "rgb(0, 0, 0) on rgb(159, 224, 192)"},
		{"dark", "#0a7d5a", "rgb(255, 255, 255) on rgb(10, 125, 90)"},
	} {
		eval[bool](t, ctx, `chatWidget.setTheme({mode: "`+tc.mode+`", colors: {primary: "`+tc.primary+`"}}); true`)
		waitJS(t, frame, "the primary "+tc.primary, `getComputedStyle(document.documentElement).getPropertyValue("--fb-primary").trim() === "`+tc.primary+`"`)
		if got := eval[string](t, frame, labelJS); got != tc.want {
			t.Errorf("%s mode, primary %s: the primary button's label is %s; want %s", tc.mode, tc.primary, got, tc.want)
		}
	}
}

// TestURLModeBrowserRefusesWithoutCanParse: Safari before 17 has no
// URL.canParse. For an address the browser does not accept, the widget
// then opens a blank tab and only learns of the address when it sends
// the tab there: the person is left on an empty tab (on an iPhone, taken
// to it), away from the widget that says the link cannot be opened.
func TestURLModeBrowserRefusesWithoutCanParse(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, `delete URL.canParse;`)
	openWidget(t, ctx, b)
	// window.open records its tabs; the browser refuses addresses with
	// "/connect" (an address the bridge passes and the browser does not:
	// the one TestURLModeAddressBrowserRefuses stands in for), as
	// Location.replace and the URL constructor do: by throwing.
	eval[bool](t, ctx, `(() => {
		const Real = URL, refuses = (u) => String(u).includes("/connect");
		window.URL = class extends Real { constructor(u, base) { if (refuses(u)) throw new TypeError("invalid URL"); super(u, base); } };
		window.__opens = [];
		window.open = function (...args) {
			const tab = { opener: window, closed: false, close() { tab.closed = true; },
				location: { replace(u) { if (refuses(u)) throw new DOMException("The string did not match the expected pattern.", "SyntaxError"); tab.url = u; } } };
			window.__opens.push(tab);
			return tab;
		};
		return true;
	})()`)
	out := b.Elicit(t, `{"mode":"url","message":"Connect","elicitationId":"el-8","url":"https://example.com/connect"}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "open", chromedp.Click(action("open")))
	waitJS(t, ctx, "the person told", `document.querySelector("[role=alert].fb-send-error")?.textContent.includes("cannot be opened") === true`)
	if left := eval[int](t, ctx, `window.__opens.filter((t) => !t.closed).length`); left != 0 {
		t.Errorf("%d blank tab(s) left open for an address the browser refuses", left)
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
}

// dropHas takes out of the page's stylesheets every rule whose selector
// uses :has(), as Firefox before 121 (Firefox ESR 115) drops them when
// it parses app.css: a selector list with one selector it cannot read
// is dropped whole.
const dropHas = `(() => {
	let n = 0;
	const walk = (list) => {
		for (let i = list.cssRules.length - 1; i >= 0; i--) {
			const r = list.cssRules[i];
			if (r.cssRules && !r.selectorText) walk(r);
			else if (r.selectorText && r.selectorText.includes(":has(")) { list.deleteRule(i); n++; }
		}
	};
	for (const s of document.styleSheets) walk(s);
	return n;
})()`

// TestURLLookalikeOpenNotSuggestedWithoutHas: a link whose site name may
// imitate another's shows Open link like the other buttons, not as the
// suggested step, in Firefox ESR 115 too.
func TestURLLookalikeOpenNotSuggestedWithoutHas(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	eval[int](t, ctx, dropHas)
	out := b.Elicit(t, `{"mode":"url","message":"Sign in to continue","elicitationId":"el-1","url":"https://\u0430pple.com/login"}`, nil)
	waitForm(t, ctx)
	got := eval[[]string](t, ctx, `["open", "decline"].map((a) => {
		const s = getComputedStyle(document.querySelector("button[data-action=" + a + "]"));
		return s.backgroundColor + " " + s.color + " " + s.fontWeight;
	})`)
	if got[0] != got[1] {
		t.Errorf("Open link on a look-alike site is %s, Decline %s: Open is still the suggested step", got[0], got[1])
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
}

// TestForcedColorsOpenRequestWithoutHas: with Windows' contrast themes
// (forced colours) the list of requests marks the open one only by its
// outline, its background being the theme's. Firefox ESR 115 must show
// it too, though it cannot read the :has() beside it in app.css.
func TestForcedColorsOpenRequestWithoutHas(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	b.Elicit(t, noteQuestion, nil)
	b.Elicit(t, noteQuestion, nil)
	waitJS(t, ctx, "the list with the open request", `document.querySelector('.fb-queue-item[aria-current="true"]') !== null`)
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "forced-colors", Value: "active"}},
	}); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, ctx, dropHas); n == 0 {
		t.Fatal("no :has() rule found to drop")
	}
	if got := eval[string](t, ctx, `getComputedStyle(document.querySelector('.fb-queue-item[aria-current="true"]')).outlineStyle`); got != "solid" {
		t.Errorf("the open request's row in the list has outline %q in forced colours; want solid", got)
	}
}

// TestWorkerNotificationClickFocusesWidget: on a phone (the page may not
// construct its own notification) the widget shows it through the
// service worker. The person has another page of the same origin open
// and used it last (the demo panel; a host site's own pages where the
// widget is built into it). Tapping the notification must bring forward
// the widget's tab, the one that asks, not whichever tab of the origin
// the browser lists first (clients.matchAll lists the most recently
// focused first).
func TestWorkerNotificationClickFocusesWidget(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, illegalNotification+`
window.__shown = [];
window.__closed = [];
ServiceWorkerRegistration.prototype.showNotification = function (title, opts) {
	window.__shown.push({title, opts});
	return Promise.resolve();
};
ServiceWorkerRegistration.prototype.getNotifications = function (filter) {
	return Promise.resolve(window.__shown.filter((n) => n.opts.tag === filter.tag).map((n) => ({close() { window.__closed.push(n.opts.tag); }})));
};`)
	// The worker script is run in the page below (new Function).
	if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	openWidget(t, ctx, b)
	out := b.Elicit(t, noteQuestion, nil)
	waitJS(t, ctx, "the worker's notification", `window.__shown.length > 0`)
	// The worker's own script, run against stand-ins for its global:
	// two tabs of the origin, the other page focused last.
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const src = await (await fetch("/app-worker.js")).text();
		const handlers = {};
		let focused = "none";
		const other = {url: location.origin + "/demo/", focus() { focused = "the other page"; return Promise.resolve(this); }};
		const widget = {url: location.href, focus() { focused = "the widget"; return Promise.resolve(this); }};
		const self = {
			addEventListener(type, fn) { handlers[type] = fn; },
			clients: {matchAll: () => Promise.resolve([other, widget]), claim: () => Promise.resolve(), openWindow: () => Promise.resolve(null)},
			registration: {},
		};
		new Function("self", "caches", src)(self, {keys: () => Promise.resolve([])});
		const shown = window.__shown[window.__shown.length - 1];
		let wait = Promise.resolve();
		handlers.notificationclick({
			notification: {title: shown.title, tag: shown.opts.tag, body: shown.opts.body, data: shown.opts.data ?? null, close() {}},
			waitUntil(p) { wait = p; },
		});
		await wait;
		return focused;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got != "the widget" {
		t.Errorf("tapping the worker's notification brought forward %s; want the widget's tab", got)
	}
	// Answered, nothing waits: the worker's notification is closed.
	waitForm(t, ctx)
	sendNote(t, ctx, out)
	waitJS(t, ctx, "the worker's notification closed", `window.__closed.length === 1 && window.__closed[0] === window.__shown[0].opts.tag`)
}
