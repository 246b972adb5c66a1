package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestEarlyConnectionStaticSite: a static site's page reads its
// config.json and connects while the wasm loads (web/connect.js), to the
// bridge the widget then chooses too, and the widget takes that
// connection and the file as the page read them: one WebSocket, one
// request for config.json. Where the widget will refuse the link (it
// names a bridge other than config.json's), the page connects nowhere.
func TestEarlyConnectionStaticSite(t *testing.T) {
	ctx := NewBrowser(t)
	static := newCountedSite(t)
	siteURL := "http://" + static.addr + "/approvals/"
	origin := strings.TrimSuffix(siteURL, "/approvals/")
	writeConfig := func(t *testing.T, bridge string) {
		t.Helper()
		static.writeConfig(t, `{"bridge":"`+bridge+`"}`)
	}
	// open opens the site with the fragment, a request already waiting
	// on b, and answers it.
	open := func(t *testing.T, b *Bridge, fragment string) {
		t.Helper()
		tab := NewTab(t, ctx, t.Name())
		runFirst(t, tab, recordSockets)
		out := b.Elicit(t, noteQuestion, nil)
		static.configReads.Store(0)
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#"+fragment))
		waitForm(t, tab)
		sendNote(t, tab, out)
		wantScriptSocketOnly(t, tab)
		if n := b.Upgrades(); n != 1 {
			t.Errorf("the bridge took %d connections, want 1", n)
		}
		if n := static.configReads.Load(); n != 1 {
			t.Errorf("config.json was asked for %d times, want 1 (the page's script's)", n)
		}
		wantVersionSaid(t, tab, b)
		wantWasmPreloaded(t, tab) // from a plain file server too
	}

	t.Run("bridge in config.json", func(t *testing.T) {
		b := startOriginBridge(t, origin)
		writeConfig(t, b.WSURL())
		open(t, b, "token="+b.Token)
	})
	t.Run("the same bridge in config.json and the link", func(t *testing.T) {
		// Written two ways that name one place: the page and the widget
		// must agree that they do (client.BridgeURL).
		b := startOriginBridge(t, origin)
		writeConfig(t, b.WSURL())
		open(t, b, "token="+b.Token+"&bridge="+b.URL)
	})
	t.Run("no config.json, bridge in the link", func(t *testing.T) {
		b := startOriginBridge(t, origin)
		open(t, b, "bridge="+b.WSURL()+"&token="+b.Token)
	})
	t.Run("a link the widget cannot read", func(t *testing.T) {
		// Go's query parser refuses a ';' and a '%' without two hex
		// digits (the browser's reads on): the widget sees no link, so
		// the page must not connect with one.
		for _, tail := range []string{";", "%zz"} {
			b := startOriginBridge(t, origin)
			writeConfig(t, b.WSURL())
			tab := NewTab(t, ctx, t.Name()+" "+tail)
			runFirst(t, tab, recordSockets)
			do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#token="+b.Token+tail))
			waitJS(t, tab, "the widget to start", `document.getElementById("app-wasm-loader") === null`)
			time.Sleep(time.Second) // for a connection that should not come
			if n, up := eval[int](t, tab, `__sockets.length`), b.Upgrades(); n != 0 || up != 0 {
				t.Errorf("link ending %q: the page opened %d WebSockets and the bridge took %d; want none", tail, n, up)
			}
		}
	})
	t.Run("config.json that Go reads otherwise", func(t *testing.T) {
		// Go's decoder takes a "bridge" key in any letter case, the last
		// one written winning, and refuses the file when one is not a
		// string; the browser's reads "bridge" alone. The page must not
		// connect where the widget will not.
		first, last := startOriginBridge(t, origin), startOriginBridge(t, origin)
		static.writeConfig(t, `{"bridge":"`+first.WSURL()+`","BRIDGE":"`+last.WSURL()+`"}`)
		out := last.Elicit(t, noteQuestion, nil)
		tab := NewTab(t, ctx, t.Name())
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#token="+last.Token))
		waitForm(t, tab)
		sendNote(t, tab, out)
		if n := first.Upgrades(); n != 0 {
			t.Errorf("the bridge of the key the widget does not read took %d connections, want none", n)
		}

		// unreadable opens the site with a config.json, naming a new
		// bridge, that the widget cannot read (what says why): the person
		// is told so, and the page connects nowhere.
		unreadable := func(what string, config func(b *Bridge) string) {
			t.Helper()
			b := startOriginBridge(t, origin)
			static.writeConfig(t, config(b))
			tab := NewTab(t, ctx, t.Name()+" "+what)
			runFirst(t, tab, recordSockets)
			do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#token="+b.Token))
			waitJS(t, tab, "the explanation", `document.body.innerText.includes("its settings file cannot be read")`)
			if n, up := eval[int](t, tab, `__sockets.length`), b.Upgrades(); n != 0 || up != 0 {
				t.Errorf("%s: the page opened %d WebSockets and the bridge took %d; want none", what, n, up)
			}
		}
		unreadable("a file the widget cannot read", func(b *Bridge) string {
			return `{"bridge":"` + b.WSURL() + `","BRIDGE":1}`
		})
		unreadable("an address the browser's URL parser reads and Go's refuses", func(b *Bridge) string {
			return `{"bridge":"ws:/` + strings.TrimPrefix(b.WSURL(), "ws://") + `"}`
		})
		unreadable("an address with an escape Go's URL parser refuses", func(b *Bridge) string {
			return `{"bridge":"` + b.WSURL() + `%zz"}`
		})
	})
	t.Run("a page script's config.json promise that is no object", func(t *testing.T) {
		// Another script on the page (an extension's) may take the name
		// the widget reads the file from: it says the file cannot be
		// read, rather than stopping.
		b := startOriginBridge(t, origin)
		writeConfig(t, b.WSURL())
		tab := NewTab(t, ctx, t.Name())
		runFirst(t, tab, `Object.defineProperty(window, "formbridgeConfig", {get: () => Promise.resolve(null), set() {}});`)
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#token="+b.Token))
		waitJS(t, tab, "the explanation", `document.body.innerText.includes("its settings file cannot be read")`)
	})
	t.Run("link names another bridge", func(t *testing.T) {
		b := startOriginBridge(t, origin)
		other := startOriginBridge(t, origin)
		writeConfig(t, b.WSURL())
		other.Elicit(t, noteQuestion, nil)
		tab := NewTab(t, ctx, t.Name())
		runFirst(t, tab, recordSockets)
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#bridge="+other.WSURL()+"&token="+other.Token))
		waitJS(t, tab, "the refusal", `document.body.innerText.includes("different place than the one it is set up for")`)
		if n := eval[int](t, tab, `__sockets.length`); n != 0 {
			t.Errorf("the page opened %d WebSockets, want none", n)
		}
		if other.Upgrades() != 0 || b.Upgrades() != 0 {
			t.Errorf("connections: %d to the link's bridge, %d to config.json's; want none", other.Upgrades(), b.Upgrades())
		}
		if eval[bool](t, tab, `document.body.innerText.includes("Deploy?")`) {
			t.Error("the page shows the question of a bridge config.json does not name")
		}
	})
}
