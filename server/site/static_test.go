package site

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// generate writes a static site from a small web folder.
func generate(t *testing.T, prefix string) string {
	t.Helper()
	out := t.TempDir()
	if err := GenerateStatic(out, &StaticOptions{WebDir: webDir(t, "body{}"), Prefix: prefix, Version: "v1"}); err != nil {
		t.Fatalf("GenerateStatic: %v", err)
	}
	return out
}

// localRef finds the same-host URLs a page or script loads: src and
// href attributes, and the quoted paths in app.js (wasm, worker).
var localRef = regexp.MustCompile(`(?:src|href)="(/[^"]*)"|"(/[^"]*\.(?:js|wasm))"`)

// TestStaticSiteResolves serves the generated folder with a plain file
// server, as any static host would, at the root and under a prefix, and
// checks that every URL the page and its loader ask for is there and
// stays under the prefix.
func TestStaticSiteResolves(t *testing.T) {
	for _, tc := range []struct{ prefix, mount string }{
		{"", "/"},
		{"/", "/"},
		{"/approvals/", "/approvals/"},
		{"team/approvals", "/team/approvals/"},
	} {
		t.Run(tc.mount, func(t *testing.T) {
			out := generate(t, tc.prefix)
			mux := http.NewServeMux()
			mux.Handle(tc.mount, http.StripPrefix(strings.TrimSuffix(tc.mount, "/"), http.FileServer(http.Dir(out))))
			page := get(t, mux, tc.mount)
			if page.code != http.StatusOK || !bytes.Contains(page.body, []byte(`class="fb-widget"`)) {
				t.Fatalf("GET %s: %d, want the prerendered widget page:\n%s", tc.mount, page.code, page.body)
			}
			script := get(t, mux, tc.mount+"app.js")
			refs := map[string]bool{}
			for _, body := range [][]byte{page.body, script.body} {
				for _, m := range localRef.FindAllSubmatch(body, -1) {
					refs[string(m[1])+string(m[2])] = true
				}
			}
			for _, want := range []string{tc.mount + "app.js", tc.mount + "wasm_exec.js", tc.mount + "web/app.css", tc.mount + "web/app.wasm", tc.mount + "app-worker.js", tc.mount + "web/warmup.js"} {
				if !refs[want] {
					t.Errorf("the page never refers to %s; it refers to %v", want, refs)
				}
			}
			for ref := range refs {
				if !strings.HasPrefix(ref, tc.mount) {
					t.Errorf("%s is outside the site's prefix %s", ref, tc.mount)
					continue
				}
				if r := get(t, mux, ref); r.code != http.StatusOK {
					t.Errorf("GET %s: %d", ref, r.code)
				}
			}
			wantConfig := `"FORMBRIDGE_CONFIG":"` + tc.mount + `config.json"`
			if !bytes.Contains(script.body, []byte(wantConfig)) {
				t.Errorf("app.js does not tell the widget where config.json is (%s)", wantConfig)
			}
		})
	}
}

// TestStaticSiteCopiesWeb checks the precompressed wasm travels with the
// site, and neither the embedding Go source, the demo's panel nor the
// early connection's script (the page carries it in itself) does.
func TestStaticSiteCopiesWeb(t *testing.T) {
	out := generate(t, "")
	for name, want := range map[string][]byte{"app.wasm": rawWasm, "app.wasm.br": brWasm, "embed.js": []byte("// embed")} {
		b, err := os.ReadFile(filepath.Join(out, "web", name))
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("web/%s: %q, %v; want the web folder's bytes", name, b, err)
		}
	}
	for _, name := range []string{"web.go", DemoScript, ConnectScript} {
		if _, err := os.Stat(filepath.Join(out, "web", name)); err == nil {
			t.Errorf("web/%s was copied into the site", name)
		}
	}
}

// TestStaticSitePolicy: a static host sends no headers of ours, so the
// page carries its policy itself.
func TestStaticSitePolicy(t *testing.T) {
	out := generate(t, "")
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`http-equiv="Content-Security-Policy"`, "script-src 'self' 'wasm-unsafe-eval'", "connect-src 'self' ws: wss:", "object-src 'none'", `<meta name="referrer" content="no-referrer">`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	// The storage stand-in and the early connection run from the page
	// itself, after the policy (which rules only what follows it) and
	// allowed by their hashes.
	policy := bytes.Index(page, []byte(`http-equiv="Content-Security-Policy"`))
	for _, name := range []string{StorageScript, ConnectScript} {
		text, ok := pageInlineScript(string(page), name)
		if !ok {
			t.Fatalf("index.html does not carry %s:\n%s", name, page)
		}
		hash := bytes.Index(page, []byte(hashSource(text)))
		if hash < 0 || policy < 0 || bytes.Index(page, []byte(text)) < policy {
			t.Errorf("the policy does not allow %s by its hash, or comes after it:\n%s", name, page)
		}
	}
	// A policy in a meta tag rules only what comes after it: all of it.
	if first := regexp.MustCompile(`<(?:link|script|style)[ >]`).FindIndex(page); first == nil || first[0] < policy {
		t.Errorf("a stylesheet or script comes before the policy:\n%s", page)
	}
}

// TestStaticSiteNamesItsConfig: the page's early connection (connect.js)
// reads config.json where the widget will, named in the page before the
// script, under the site's prefix.
func TestStaticSiteNamesItsConfig(t *testing.T) {
	for prefix, want := range map[string]string{"": "/config.json", "/approvals/": "/approvals/config.json"} {
		out := generate(t, prefix)
		page, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		meta := []byte(`<meta name="formbridge-config" content="` + want + `">`)
		at, script := bytes.Index(page, meta), bytes.Index(page, []byte("// connect"))
		if at < 0 || script < 0 || script < at {
			t.Errorf("prefix %q: the page does not name %s before connect.js:\n%s", prefix, want, page)
		}
	}
}

// TestStaticSiteNamesNoRenderHost: the pages are rendered by a loopback
// server that is gone once the command ends; its address must not be
// published.
func TestStaticSiteNamesNoRenderHost(t *testing.T) {
	out := generate(t, "/approvals/")
	for _, name := range []string{"index.html", "app.js", "manifest.webmanifest", "app-worker.js"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("127.0.0.1")) {
			t.Errorf("%s names the loopback server it was rendered by", name)
		}
	}
}

// TestStaticSiteZooms: the static page, like the bridge's, lets people
// enlarge it (go-app's own viewport forbids zooming).
func TestStaticSiteZooms(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(generate(t, "/"), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("user-scalable")) || !bytes.Contains(b, []byte(`name="viewport"`)) {
		t.Errorf("index.html forbids zooming or has no viewport:\n%s", b)
	}
}

func TestStaticSiteKeepsConfig(t *testing.T) {
	out := t.TempDir()
	config := []byte(`{"bridge":"wss://bridge.example.com/ws"}`)
	if err := os.WriteFile(filepath.Join(out, ConfigFile), config, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := GenerateStatic(out, &StaticOptions{WebDir: webDir(t, "")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, ConfigFile)); !bytes.Equal(b, config) {
		t.Errorf("config.json changed to %q", b)
	}
}

func TestStaticBadPrefix(t *testing.T) {
	for _, p := range []string{"https://evil.example/", "/a/../b", "/a b", `/a"b`, "/a?x", "/a#x"} {
		if err := GenerateStatic(t.TempDir(), &StaticOptions{WebDir: webDir(t, ""), Prefix: p}); err == nil {
			t.Errorf("prefix %q accepted", p)
		}
	}
}

func TestStaticNeedsWasm(t *testing.T) {
	dir := webDir(t, "")
	if err := os.Remove(filepath.Join(dir, "app.wasm")); err != nil {
		t.Fatal(err)
	}
	err := GenerateStatic(t.TempDir(), &StaticOptions{WebDir: dir})
	if err == nil || !strings.Contains(err.Error(), "make wasm") {
		t.Errorf("GenerateStatic without app.wasm: %v; want an error saying to build it", err)
	}
}

// TestExamplesServed: the bridge serves web/examples at /examples/, with
// the site's headers, so `formbridge demo` shows the chat example.
func TestExamplesServed(t *testing.T) {
	dir := webDir(t, "")
	if err := os.MkdirAll(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "examples", "chat.html"), []byte("<!DOCTYPE html><title>chat</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newSite(t, &Options{WebDir: dir, AllowedOrigins: []string{"https://chat.example.com"}})
	r := get(t, h, "/examples/chat.html")
	if r.code != http.StatusOK || !bytes.Contains(r.body, []byte("<title>chat</title>")) {
		t.Fatalf("GET /examples/chat.html: %d %q", r.code, r.body)
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self' https://chat.example.com") {
		t.Errorf("CSP %q lacks the allowed origin in frame-ancestors", csp)
	}
	if r := get(t, h, "/examples/missing.html"); r.code != http.StatusNotFound {
		t.Errorf("GET a missing example: %d", r.code)
	}
}

// A file of the web folder whose type the site does not know goes as
// application/octet-stream (with nosniff, never rendered), not as
// whatever its bytes look like.
func TestUnknownTypeNotSniffed(t *testing.T) {
	dir := webDir(t, "")
	if err := os.WriteFile(filepath.Join(dir, "notes.formbridge-unknown"), []byte("<!DOCTYPE html><script>alert(1)</script>"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := get(t, newSite(t, &Options{WebDir: dir}), "/web/notes.formbridge-unknown")
	if r.code != http.StatusOK || r.header.Get("Content-Type") != "application/octet-stream" || r.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET a file of unknown type: %d, Content-Type %q, X-Content-Type-Options %q; want 200, application/octet-stream, nosniff",
			r.code, r.header.Get("Content-Type"), r.header.Get("X-Content-Type-Options"))
	}
}
