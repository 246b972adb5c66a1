package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestStaticSiteEmbedded: a static site's widget shown in a host page's
// frame through the site's own embed.js (EMBED.md, "Host as a static
// site"). Its bridge comes from the site's config.json, which the widget
// reads itself there (the page's script leaves a frame's bridge to it),
// or from mount's bridge option; an option naming another bridge than
// config.json's is refused in words, and nothing connects to it.
func TestStaticSiteEmbedded(t *testing.T) {
	ctx := NewBrowser(t)
	static := newCountedSite(t)
	// localhost, where the host page is on 127.0.0.1: another site, so
	// the frame is its own target, as on the web.
	siteOrigin := "http://localhost:" + port(static.addr)
	widget := siteOrigin + "/approvals/"
	hostDir := t.TempDir()
	host := serveDir(t, hostDir, "/")
	// mount opens a host page that mounts the static widget with
	// options (a JavaScript object), and returns the widget's frame.
	mount := func(t *testing.T, options string) (tab, frame context.Context) {
		t.Helper()
		page := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".html"
		html := `<!DOCTYPE html><title>host</title><div id="approvals"></div>
<script src="` + widget + `web/embed.js"></script>
<script>formbridge.mount(document.getElementById("approvals"), ` + options + `);</script>`
		if err := os.WriteFile(filepath.Join(hostDir, page), []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		static.configReads.Store(0)
		tab = NewTab(t, ctx, t.Name())
		do(t, tab, "open the host page", chromedp.Navigate(host+"/"+page))
		return tab, frameContext(t, tab, widget)
	}

	// wantUnreadable mounts the widget with b in mount's options, where
	// config.json cannot be read: the person is told so, and nothing
	// connects to b.
	wantUnreadable := func(t *testing.T, b *Bridge) {
		t.Helper()
		_, frame := mount(t, `{token: `+strconv.Quote(b.Token)+`, bridge: `+strconv.Quote(b.WSURL())+`}`)
		waitJS(t, frame, "the explanation", `document.body.innerText.includes("its settings file cannot be read")`)
		if n := b.Upgrades(); n != 0 {
			t.Errorf("the bridge took %d connections from a page that cannot read its settings, want none", n)
		}
	}

	t.Run("bridge in config.json", func(t *testing.T) {
		b := startOriginBridge(t, siteOrigin)
		static.writeConfig(t, `{"bridge":"`+b.WSURL()+`"}`)
		out := b.Elicit(t, noteQuestion, nil)
		_, frame := mount(t, `{token: `+strconv.Quote(b.Token)+`}`)
		waitForm(t, frame)
		sendNote(t, frame, out)
		if n := static.configReads.Load(); n != 1 {
			t.Errorf("config.json was asked for %d times, want 1 (the widget's)", n)
		}
		if n := b.Upgrades(); n != 1 {
			t.Errorf("the bridge took %d connections, want 1", n)
		}
	})
	t.Run("bridge in mount's options, no config.json", func(t *testing.T) {
		b := startOriginBridge(t, siteOrigin)
		out := b.Elicit(t, noteQuestion, nil)
		_, frame := mount(t, `{token: `+strconv.Quote(b.Token)+`, bridge: `+strconv.Quote(b.WSURL())+`}`)
		waitForm(t, frame)
		sendNote(t, frame, out)
	})
	t.Run("options name another bridge than config.json", func(t *testing.T) {
		b := startOriginBridge(t, siteOrigin)
		other := startOriginBridge(t, siteOrigin)
		static.writeConfig(t, `{"bridge":"`+b.WSURL()+`"}`)
		other.Elicit(t, noteQuestion, nil)
		_, frame := mount(t, `{token: `+strconv.Quote(other.Token)+`, bridge: `+strconv.Quote(other.WSURL())+`}`)
		waitJS(t, frame, "the refusal", `document.body.innerText.includes("different place than the one it is set up for")`)
		if other.Upgrades() != 0 || b.Upgrades() != 0 {
			t.Errorf("connections: %d to the options' bridge, %d to config.json's; want none", other.Upgrades(), b.Upgrades())
		}
	})
	t.Run("config.json not fetched", func(t *testing.T) {
		// The widget's fetch refuses a redirect: the request fails
		// before any answer, and the person still reads why.
		b := startOriginBridge(t, siteOrigin)
		static.configRedirect.Store(true)
		t.Cleanup(func() { static.configRedirect.Store(false) })
		wantUnreadable(t, b)
		if n := static.configReads.Load(); n != 1 {
			t.Errorf("config.json was asked for %d times, want 1", n)
		}
	})
	t.Run("config.json unreadable", func(t *testing.T) {
		b := startOriginBridge(t, siteOrigin)
		static.writeConfig(t, `{"bridge":`)
		wantUnreadable(t, b)
	})
}
