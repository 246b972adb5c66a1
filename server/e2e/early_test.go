package e2e

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// recordSockets has the page keep every WebSocket the browser really
// opens, with the stack that opened it, in window.__sockets; a socket
// handed over by web/connect.js is not a new one.
const recordSockets = `
window.__sockets = [];
window.WebSocket = new Proxy(WebSocket, {construct(Real, args) {
	const ws = new Real(...args);
	window.__sockets.push({ws, from: new Error().stack});
	return ws;
}});
window.__realWebSocket = window.WebSocket;`

// TestEarlyConnection: the page connects and says hello while the wasm
// loads (web/connect.js), and the widget takes that connection over: a
// request already waiting shows and is answered through it, and no
// second connection is made.
func TestEarlyConnection(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, recordSockets)
	out := b.Elicit(t, noteQuestion, nil)
	do(t, ctx, "open the widget", chromedp.Navigate(b.WidgetURL()))
	waitForm(t, ctx)
	sendNote(t, ctx, out)

	wantScriptSocketOnly(t, ctx)
	if n := b.Upgrades(); n != 1 {
		t.Errorf("the bridge took %d connections, want 1", n)
	}
	if !eval[bool](t, ctx, `window.WebSocket === __realWebSocket && window.formbridgeEarly === null`) {
		t.Error("the page's WebSocket constructor was not given back, or the early connection is still on offer")
	}
	wantVersionSaid(t, ctx, b)
}

// wantVersionSaid checks that the one widget that said hello to b gave
// the page's version (server/site's meta element, e2e-<hash> for the
// tests' sites), so the bridge's log tells which widget builds are still
// out there: in the hello the page's script said and the widget took.
func wantVersionSaid(t *testing.T, ctx context.Context, b *Bridge) {
	t.Helper()
	version := eval[string](t, ctx, `document.querySelector('meta[name="formbridge-version"]')?.content ?? ""`)
	if !strings.HasPrefix(version, "e2e-") {
		t.Errorf("the page's version meta holds %q, want the site's version e2e-<hash>", version)
	}
	want := []wire.Implementation{{Name: "formbridge-widget", Version: version}}
	if got := b.Clients(); !slices.Equal(got, want) {
		t.Errorf("the bridge logged widgets %+v, want %+v", got, want)
	}
}

// TestEarlyConnectionOnReload: a reload has no token in its address (the
// widget took it out and kept it in the tab's session storage), and
// still connects early, from the link kept.
func TestEarlyConnectionOnReload(t *testing.T) {
	b, ctx := openKeptLink(t)
	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	do(t, ctx, "reload", chromedp.Reload())
	waitForm(t, ctx)
	sendNote(t, ctx, out)
	wantScriptSocketOnly(t, ctx)
	if n := b.Upgrades(); n != 2 {
		t.Errorf("the bridge took %d connections over the load and the reload, want 2", n)
	}
}

// TestEarlyConnectionKeptLinkWhole: a fragment naming a bridge but no
// token, in a tab that kept a link: the page's script and the widget
// both take the kept link whole, so there is one connection, not the
// script's and then the widget's to a mix of the two links.
func TestEarlyConnectionKeptLinkWhole(t *testing.T) {
	b, ctx := openKeptLink(t)
	before := b.Upgrades()
	other := "ws" + strings.TrimPrefix(b.URL, "http") + "/ws?other"
	do(t, ctx, "open with a bridge and no token",
		chromedp.Navigate(b.URL+"/?again#bridge="+other),
		chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)),
	)
	if n := eval[int](t, ctx, `__sockets.length`); n != 1 {
		t.Errorf("the page opened %d WebSockets, want 1: %s", n, eval[string](t, ctx, `__sockets.map(s => s.ws.url).join(" ")`))
	}
	if n := b.Upgrades() - before; n != 1 {
		t.Errorf("the bridge took %d connections for this load, want 1", n)
	}
}

// TestEarlyConnectionNotTheWidgets: when the page's early connection
// said a hello the widget would not have said, the widget closes it and
// connects itself; the request waiting is shown and answered all the
// same.
func TestEarlyConnectionNotTheWidgets(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	// As if connect.js and the widget had drifted apart.
	runFirst(t, ctx, recordSockets+`
Object.defineProperty(window, "formbridgeEarly", {configurable: true, get() {}, set(v) {
	v.hello = v.hello.replace("formbridge-widget", "an-older-widget");
	Object.defineProperty(window, "formbridgeEarly", {value: v, writable: true, configurable: true});
}});`)
	out := b.Elicit(t, noteQuestion, nil)
	do(t, ctx, "open the widget", chromedp.Navigate(b.WidgetURL()))
	waitForm(t, ctx)
	sendNote(t, ctx, out)

	if n := eval[int](t, ctx, `__sockets.length`); n != 2 {
		t.Errorf("the page opened %d WebSockets, want 2 (the script's, then the widget's)", n)
	}
	waitJS(t, ctx, "the early connection to close", `__sockets[0].ws.readyState === WebSocket.CLOSED`)
	if n := b.Upgrades(); n != 2 {
		t.Errorf("the bridge took %d connections, want 2", n)
	}
}

// TestEarlyConnectionLost: the early connection drops while the wasm is
// still on its way; the widget finds it closed, connects again, and shows
// the request waiting.
func TestEarlyConnectionLost(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, recordSockets)

	release := holdWasm(t, ctx)
	out := b.Elicit(t, noteQuestion, nil)
	do(t, ctx, "open the widget", chromedp.Navigate(b.WidgetURL()))
	waitJS(t, ctx, "the early connection to open", `__sockets.length === 1 && __sockets[0].ws.readyState === WebSocket.OPEN`)
	b.DropWidgets()
	waitJS(t, ctx, "the page to see it drop", `__sockets[0].ws.readyState === WebSocket.CLOSED`)
	release()

	waitForm(t, ctx)
	sendNote(t, ctx, out)
	if n := b.Upgrades(); n != 2 {
		t.Errorf("the bridge took %d connections, want 2 (the early one, then the widget's)", n)
	}
}

// wantScriptSocketOnly checks that the page (as last loaded) opened one
// WebSocket, and that web/connect.js opened it.
func wantScriptSocketOnly(t *testing.T, ctx context.Context) {
	t.Helper()
	if n := eval[int](t, ctx, `__sockets.length`); n != 1 {
		t.Errorf("the page opened %d WebSockets, want 1", n)
	}
	if !eval[bool](t, ctx, `__sockets[0].from.includes("connect.js")`) {
		t.Errorf("the page's WebSocket was not the page script's: %s", eval[string](t, ctx, `__sockets[0].from`))
	}
}

// openKeptLink opens the widget from its link, recording sockets, and
// waits until the widget has taken the token out of the address and
// kept the link for reloads.
func openKeptLink(t *testing.T) (*Bridge, context.Context) {
	t.Helper()
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, recordSockets)
	openWidget(t, ctx, b)
	waitJS(t, ctx, "the token to leave the address bar", `!location.href.includes("token=")`)
	return b, ctx
}

// holdWasm holds the page's download of app.wasm back until release is
// called, as a slow network would.
func holdWasm(t *testing.T, ctx context.Context) (release func()) {
	t.Helper()
	held := make(chan struct{})
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			select {
			case <-held:
			case <-ctx.Done():
				return
			}
			chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*app.wasm*"}}}); err != nil {
		t.Fatal(err)
	}
	return func() { close(held) }
}

// TestEarlyConnectionRefused: the bridge refuses the link's token on the
// early connection before the wasm has arrived; the widget says so from
// that refusal, without knocking again with the same token.
func TestEarlyConnectionRefused(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, recordSockets)
	release := holdWasm(t, ctx)
	do(t, ctx, "open with a wrong token", chromedp.Navigate(b.URL+"/#token=not-the-token"))
	waitJS(t, ctx, "the early connection to be refused", `__sockets.length === 1 && __sockets[0].ws.readyState === WebSocket.CLOSED`)
	release()
	do(t, ctx, "the widget says so", chromedp.WaitVisible(chromedp.CSS(`[data-connection="offline"]`)))
	// A retry would come after 1 s.
	time.Sleep(3 * time.Second)
	if n := b.Upgrades(); n != 1 {
		t.Errorf("the page connected %d times with a refused token, want 1", n)
	}
	if got := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(got, "not accepted") {
		t.Errorf("the page does not say the link was not accepted:\n%s", got)
	}
}

// TestEarlyConnectionSlowHandshake: the early connection's handshake is
// slower than the widget's dial allows (15 s). The widget gives up on it
// and dials; the early socket must not open later and say hello for a
// widget that is gone, which the bridge would count as a second person
// for good.
func TestEarlyConnectionSlowHandshake(t *testing.T) {
	var upgrades atomic.Int32
	slowDone := make(chan struct{})
	b := StartBridge(t, &Options{WrapGateway: func(gw http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if upgrades.Add(1) == 1 {
				time.Sleep(17 * time.Second) // past the widget's dial timeout
				close(slowDone)
			}
			gw.ServeHTTP(w, r)
		})
	}})
	ctx := NewBrowser(t)
	runFirst(t, ctx, recordSockets)
	out := b.Elicit(t, noteQuestion, nil)
	do(t, ctx, "open the widget", chromedp.Navigate(b.WidgetURL()))
	waitForm(t, ctx)
	waitJS(t, ctx, "the early socket to be closed", `__sockets[0].ws.readyState === WebSocket.CLOSED`)
	select {
	case <-slowDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the slow handshake never ended")
	}
	// Time for a socket that opened late to say hello.
	time.Sleep(2 * time.Second)
	if n := b.Hub.Widgets("default"); n != 1 {
		t.Errorf("the bridge counts %d widgets on the channel, want 1", n)
	}
	sendNote(t, ctx, out)
}

// TestLoaderSaysWhatWaits: on a phone's network the wasm takes seconds to
// arrive, and go-app's loader covers the page with "Getting ready… N%"
// while the request is already in the page (web/connect.js). The loader
// says who is asking what, as text, and goes with the loader once the
// widget starts.
func TestLoaderSaysWhatWaits(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	const message = "Deploy <b>v2</b> to production?\nIt has 3 changes."
	pending := func(n int) {
		for i := 0; b.Hub.Pending(hub.DefaultChannel) < n; i++ {
			if i > 500 {
				t.Fatalf("%d requests are not pending", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	out := b.Elicit(t, `{"message":`+strconv.Quote(message)+`,"requestedSchema":{"type":"object","properties":{"note":{"type":"string","title":"Note"}}}}`, nil)
	pending(1)
	b.Elicit(t, noteQuestion, nil)
	pending(2)
	release := holdWasm(t, ctx)
	do(t, ctx, "open the widget", chromedp.Navigate(b.WidgetURL()))
	waitJS(t, ctx, "the request said under the loader", `document.querySelector("#app-wasm-loader #fb-loader-request") !== null`)
	said := eval[string](t, ctx, `document.getElementById("fb-loader-request").textContent`)
	if want := "2 requests are waiting for you. The first, from Travel Desk: \u201cDeploy <b>v2</b> to production?\u201d"; said != want {
		t.Errorf("under the loader: %q, want %q", said, want)
	}
	if eval[bool](t, ctx, `document.querySelector("#fb-loader-request b") !== null`) {
		t.Error("the server's message was read as HTML")
	}
	release()
	waitForm(t, ctx)
	if eval[bool](t, ctx, `document.getElementById("fb-loader-request") !== null`) {
		t.Error("the loader's words stayed once the widget started")
	}
	sendNote(t, ctx, out)
}

// TestEarlyConnectionEmbedded: in a host page's frame the page's script
// says ready, takes init's token and connects while the wasm loads
// (web/connect.js), and the widget takes that connection and the host's
// messages over: one WebSocket, one ready, and a request already waiting
// is answered through it. The frame is a process of its own, which a
// script to run first reaches only through its own target: it is loaded
// once, given the recorder, and reloaded (the host sends init again).
func TestEarlyConnectionEmbedded(t *testing.T) {
	ctx, page, b := hostPage(t, `<formbridge-widget token="{token}"></formbridge-widget>
<script>
  window.heard = [];
  const el = document.querySelector("formbridge-widget");
  for (const type of ["ready", "pending", "connection"]) {
    el.addEventListener("formbridge:" + type, (e) => heard.push(Object.assign({type}, e.detail)));
  }
</script>`)
	do(t, ctx, "open the page", chromedp.Navigate(page+"/"))
	frame := frameContext(t, ctx, b.URL+"/")
	waitJS(t, ctx, "the widget to connect", `heard.some((e) => e.type === "connection" && e.state === "online")`)
	runFirst(t, frame, recordSockets)
	out := b.Elicit(t, noteQuestion, nil)
	eval[bool](t, ctx, `heard.length = 0; true`)
	eval[bool](t, frame, `setTimeout(() => location.reload(), 0); true`)
	waitJS(t, ctx, "the reloaded widget to connect", `heard.some((e) => e.type === "connection" && e.state === "online")`)
	waitForm(t, frame)
	focusFrame(t, ctx, frame)
	sendNote(t, frame, out)
	wantScriptSocketOnly(t, frame)
	if n := b.Upgrades(); n != 2 {
		t.Errorf("the bridge took %d connections over the load and the reload, want 2", n)
	}
	if eval[bool](t, frame, `window.formbridgeFrame.take().length > 0 || window.formbridgeEarly !== null`) {
		t.Error("the page's script kept messages after the widget took them, or still offers its connection")
	}
	if n := eval[int](t, ctx, `heard.filter((e) => e.type === "ready").length`); n != 1 {
		t.Errorf("the host heard ready %d times from the reloaded widget, want once", n)
	}
	waitJS(t, ctx, "the host told none wait", `heard.some((e) => e.type === "pending" && e.count === 0)`)
}

// TestEarlyReadyForLateHosts: a host without embed.js that starts
// listening only at its frame's load event misses the ready the frame's
// page says as it is read, and is told again when the widget starts; one
// that answered the first is not. And a host whose first init has no
// token gets no connection from a later one, early or not.
func TestEarlyReadyForLateHosts(t *testing.T) {
	ctx, _, b := bareHostPage(t)
	// frame frames the widget anew; its host answers each ready with the
	// inits, listening from the start or only from the frame's load, and
	// keeps the type of each message the frame sends in heard.
	frame := func(late bool, inits ...string) {
		t.Helper()
		eval[bool](t, ctx, `(() => {
			const inits = [`+strings.Join(inits, ",")+`];
			const f = document.createElement("iframe");
			f.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
			f.src = `+strconv.Quote(b.URL+"/#host=")+` + encodeURIComponent(location.origin);
			window.heard = [];
			const listen = () => addEventListener("message", (e) => {
				if (e.source !== f.contentWindow) return;
				const type = JSON.parse(e.data).type;
				heard.push(type);
				if (type !== "ready") return;
				for (const init of inits) {
					f.contentWindow.postMessage(JSON.stringify(Object.assign({formbridge: "embed.v1", type: "init"}, init)), "*");
				}
			});
			if (`+strconv.FormatBool(late)+`) f.addEventListener("load", listen, {once: true});
			else listen();
			document.body.replaceChildren(f);
			return true;
		})()`)
	}
	// started waits until the widget in the frame runs: it reports its
	// height from then on.
	started := func(t *testing.T) {
		t.Helper()
		waitJS(t, ctx, "the widget to start", `heard.includes("height")`)
		time.Sleep(time.Second) // for a connection that should not come
	}
	token := `{"token":` + strconv.Quote(b.Token) + `}`

	t.Run("listening from the frame's load", func(t *testing.T) {
		frame(true, token)
		waitJS(t, ctx, "the widget to connect", `heard.includes("connection") && heard.includes("pending")`)
		if n := b.Upgrades(); n != 1 {
			t.Errorf("%d connections, want 1", n)
		}
	})
	t.Run("listening from the start", func(t *testing.T) {
		frame(false, token)
		started(t)
		if n := eval[int](t, ctx, `heard.filter((t) => t === "ready").length`); n != 1 {
			t.Errorf("the host heard ready %d times, want once", n)
		}
	})
	t.Run("an init the widget refuses", func(t *testing.T) {
		// A theme that is no object: Go's decoder refuses the whole
		// message, which the page's script, reading only the token,
		// connected with. The widget lets that connection go.
		before := b.Upgrades()
		frame(false, `{"token":`+strconv.Quote(b.Token)+`,"theme":5}`)
		started(t)
		deadline := time.Now().Add(stepTimeout)
		for {
			st, err := b.Hub.Status(hub.DefaultChannel)
			if err != nil {
				t.Fatal(err)
			}
			if st.Widgets == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d widgets still attached (the page's script connected %d times)", st.Widgets, b.Upgrades()-before)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("first init without a token", func(t *testing.T) {
		before := b.Upgrades()
		frame(false, `{"token":""}`, token)
		started(t)
		if n := b.Upgrades() - before; n != 0 {
			t.Errorf("%d connections, want none: only the first init counts", n)
		}
	})
}
