package site

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// versionIn finds the page's version meta element.
var versionIn = regexp.MustCompile(`<meta name="formbridge-version" content="([^"]*)">`)

// TestPagesCarryTheirVersion: the bridge's page and a static site's name
// their version (build version, then the content hash) in a meta element
// before connect.js, for the widget's hello (clientInfo.version).
func TestPagesCarryTheirVersion(t *testing.T) {
	served := get(t, newSite(t, &Options{WebDir: webDir(t, "body{}"), Version: "v1.2.3-4-gabc-dirty"}), "/").body
	static, err := os.ReadFile(filepath.Join(generate(t, "/approvals/"), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		page  []byte
		build string
	}{"bridge page": {served, "v1.2.3-4-gabc-dirty"}, "static site": {static, "v1"}} {
		m := versionIn.FindSubmatchIndex(c.page)
		if m == nil {
			t.Errorf("%s: no version meta element:\n%s", name, c.page)
			continue
		}
		if got := string(c.page[m[2]:m[3]]); !regexp.MustCompile(`^` + regexp.QuoteMeta(c.build) + `-[0-9a-f]{16}$`).MatchString(got) {
			t.Errorf("%s: version %q, want %s-<hash>", name, got, c.build)
		}
		if script := bytes.Index(c.page, []byte("// connect")); script < m[0] {
			t.Errorf("%s: the version comes after connect.js (at %d, the script at %d)", name, m[0], script)
		}
	}
}

// TestVersionMetaOnlyWhenPlain: a version the two JSON encoders could
// write apart (Go escapes <, > and &), or one too long for a log line,
// is left out: the widget then says none, and the page's script too.
func TestVersionMetaOnlyWhenPlain(t *testing.T) {
	for _, v := range []string{"v1.2.3", "v2.0.0-rc.1+build.5-0123456789abcdef", "dev-0123456789abcdef", strings.Repeat("a", 100)} {
		if got := versionMeta(v); len(got) != 1 || !strings.Contains(got[0], `content="`+v+`"`) {
			t.Errorf("versionMeta(%q) = %q, want one element with it", v, got)
		}
	}
	for _, v := range []string{"", "-v1", `v1"><script>alert(1)</script>`, "a&b", "v1 beta", "é1", strings.Repeat("a", 101)} {
		if got := versionMeta(v); got != nil {
			t.Errorf("versionMeta(%q) = %q, want none", v, got)
		}
	}
}

// preloadIn finds the page's preload of the wasm.
var preloadIn = regexp.MustCompile(`<link rel="preload" href="([^"]+)" as="fetch" crossorigin>`)

// TestPagesPreloadTheLoadersWasm: both pages start the wasm's download
// from their head, at the very URL go-app's loader (app.js) then fetches,
// so the loader takes the preloaded answer instead of downloading again.
func TestPagesPreloadTheLoadersWasm(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, "body{}"), Version: "v1"})
	served := get(t, h, "/").body
	dir := generate(t, "/approvals/")
	static, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	staticLoader, err := os.ReadFile(filepath.Join(dir, "app.js"))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ page, loader []byte }{
		"bridge page": {served, get(t, h, "/app.js").body},
		"static site": {static, staticLoader},
	} {
		m := preloadIn.FindSubmatch(c.page)
		if m == nil {
			t.Errorf("%s: no preload of the wasm:\n%s", name, c.page)
			continue
		}
		if !bytes.HasSuffix(m[1], []byte("/app.wasm")) || !bytes.Contains(c.loader, []byte(`"`+string(m[1])+`"`)) {
			t.Errorf("%s: preloads %s, which the loader does not fetch:\n%s", name, m[1], c.loader)
		}
	}
}
