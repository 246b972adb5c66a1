package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/site"
)

// staticSite writes the widget as a static site (what `formbridge
// static --prefix` writes) and serves it under prefix with a plain file
// server; it returns the folder and the site's URL.
func staticSite(t *testing.T, prefix string) (dir, siteURL string) {
	t.Helper()
	dir = t.TempDir()
	if err := site.GenerateStatic(dir, &site.StaticOptions{WebDir: WebDir(), Version: "e2e", Prefix: prefix}); err != nil {
		t.Fatalf("GenerateStatic: %v", err)
	}
	return dir, serveDir(t, dir, prefix) + prefix
}

// countedSite is a static site under /approvals/ on a plain file
// server that counts the requests for its config.json.
type countedSite struct {
	dir            string
	addr           string // host:port it listens on
	configReads    atomic.Int32
	configRedirect atomic.Bool // config.json answers with a redirect, which the page's fetch refuses
}

func newCountedSite(t *testing.T) *countedSite {
	t.Helper()
	s := &countedSite{dir: t.TempDir()}
	if err := site.GenerateStatic(s.dir, &site.StaticOptions{WebDir: WebDir(), Version: "e2e", Prefix: "/approvals/"}); err != nil {
		t.Fatalf("GenerateStatic: %v", err)
	}
	files := http.StripPrefix("/approvals", http.FileServer(http.Dir(s.dir)))
	s.addr = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/approvals/"+site.ConfigFile {
			s.configReads.Add(1)
			if s.configRedirect.Load() {
				http.Redirect(w, r, "/elsewhere.json", http.StatusFound)
				return
			}
		}
		files.ServeHTTP(w, r)
	}), nil)
	return s
}

// writeConfig writes the site's config.json until the test ends.
func (s *countedSite) writeConfig(t *testing.T, body string) {
	t.Helper()
	config := filepath.Join(s.dir, site.ConfigFile)
	if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(config) })
}

// TestStaticSite: the static site, served under a prefix by a plain file
// server on one port, connects to a bridge on another origin, named in
// the link's fragment or in config.json, and an elicitation is answered
// through it. Without a bridge, or with one that refuses the site's
// origin, the page says so in words.
func TestStaticSite(t *testing.T) {
	ctx := NewBrowser(t)
	dir, siteURL := staticSite(t, "/approvals/")
	origin := strings.TrimSuffix(siteURL, "/approvals/")
	b := startOriginBridge(t, origin)
	wsURL := b.WSURL()

	t.Run("bridge in the fragment", func(t *testing.T) {
		tab := NewTab(t, ctx, "fragment")
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#bridge="+wsURL+"&token="+b.Token))
		do(t, tab, "connect", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
		out := b.Elicit(t, confirmDelete, nil)
		waitForm(t, tab)
		setValue(t, tab, field("reason", "textarea, input"), "counted twice")
		do(t, tab, "send", chromedp.Click(action("accept")))
		wantResult(t, await(t, tab, out), `{"action":"accept","content":{"reason":"counted twice"}}`)
		if u := eval[string](t, tab, `location.href`); strings.Contains(u, b.Token) {
			t.Errorf("the token stayed in the address bar: %s", u)
		}
	})

	t.Run("at the root of a host", func(t *testing.T) {
		_, rootURL := staticSite(t, "/")
		rootBridge := startOriginBridge(t, strings.TrimSuffix(rootURL, "/"))
		rootWS := rootBridge.WSURL()
		tab := NewTab(t, ctx, "root")
		do(t, tab, "open the static widget", chromedp.Navigate(rootURL+"#bridge="+rootWS+"&token="+rootBridge.Token))
		do(t, tab, "connect", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
	})

	t.Run("bridge in config.json", func(t *testing.T) {
		config := `{"bridge":"` + wsURL + `"}`
		if err := os.WriteFile(filepath.Join(dir, site.ConfigFile), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(filepath.Join(dir, site.ConfigFile)) })
		tab := NewTab(t, ctx, "config")
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#token="+b.Token))
		do(t, tab, "connect", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
		out := b.Elicit(t, confirmDelete, nil)
		waitForm(t, tab)
		press(t, tab, action("decline"))
		wantResult(t, await(t, tab, out), `{"action":"decline"}`)

		// A link cannot point the site at another bridge: its forms
		// would appear under this site's name.
		other := startOriginBridge(t)
		otherWS := other.WSURL()
		tab = NewTab(t, ctx, "other bridge")
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#bridge="+otherWS+"&token="+other.Token))
		waitJS(t, tab, "the refusal", `document.body.innerText.includes("different place than the one it is set up for")`)
		if other.Upgrades() != 0 {
			t.Errorf("the page connected to a bridge its config.json does not name")
		}
	})

	t.Run("no bridge configured", func(t *testing.T) {
		tab := NewTab(t, ctx, "no bridge")
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#token="+b.Token))
		waitJS(t, tab, "the explanation", `document.body.innerText.includes("does not know where to get your requests from")`)
		if b.Upgrades() == 0 {
			t.Fatal("the earlier subtests never connected")
		}
	})

	t.Run("bridge refuses the origin", func(t *testing.T) {
		strict := startOriginBridge(t) // allows no other origin
		strictWS := strict.WSURL()
		tab := NewTab(t, ctx, "refused")
		do(t, tab, "open the static widget", chromedp.Navigate(siteURL+"#bridge="+strictWS+"&token="+strict.Token))
		waitJS(t, tab, "the explanation", `document.body.innerText.includes("not set up for this page yet")`)
		// The person reading it is an approver: the flag and the origin to
		// add are for whoever runs the bridge, on the console.
		shown := eval[string](t, tab, `document.querySelector("main").innerText`)
		for _, jargon := range []string{"--", "origins", "ws://", "bridge"} {
			if strings.Contains(shown, jargon) {
				t.Errorf("the approver reads %q:\n%s", jargon, shown)
			}
		}
		if strict.Upgrades() != 0 {
			t.Errorf("the bridge upgraded a connection from an origin it does not allow")
		}
	})
}
