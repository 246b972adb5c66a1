package site

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/web"
)

var (
	rawWasm = bytes.Repeat([]byte("\x00asm not really wasm "), 500)
	brWasm  = []byte("pretend this is brotli")
)

// webDir writes a small web folder and returns it.
func webDir(t *testing.T, css string) string {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(rawWasm)
	zw.Close()
	files := map[string][]byte{
		"app.css":            []byte(css),
		"app.wasm":           rawWasm,
		"app.wasm.br":        brWasm,
		"app.wasm.gz":        gz.Bytes(),
		"embed.js":           []byte("// embed"),
		"demo.js":            []byte("// demo"),
		"warmup.js":          []byte("// warm-up"),
		"storage.js":         []byte("// storage"),
		"connect.js":         []byte("// connect"),
		"icons/icon.svg":     []byte("<svg/>"),
		"icons/icon-192.png": []byte("png"),
		"icons/icon-512.png": []byte("png"),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newSite(t *testing.T, opts *Options) http.Handler {
	t.Helper()
	h, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}

type reply struct {
	code   int
	header http.Header
	body   []byte
}

func get(t *testing.T, h http.Handler, path string, header ...string) reply {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return reply{w.Code, w.Result().Header, w.Body.Bytes()}
}

// wasmURL is where the page's loader fetches the wasm from.
func wasmURL(t *testing.T, h http.Handler) string {
	t.Helper()
	js := get(t, h, "/app.js")
	m := regexp.MustCompile(`fetchWithProgress\("([^"]+)"`).FindSubmatch(js.body)
	if m == nil {
		t.Fatalf("no wasm URL in app.js:\n%s", js.body)
	}
	return string(m[1])
}

func TestPageHeadersAndRevalidation(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, "body{}"), Version: "v1.2.3", AllowedOrigins: []string{"https://chat.example.com"}})
	page := get(t, h, "/")
	if page.code != http.StatusOK {
		t.Fatalf("GET / = %d:\n%s", page.code, page.body)
	}
	for key, want := range map[string]string{
		"Cache-Control":          "no-cache",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
	} {
		if got := page.header.Get(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	csp := page.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "frame-ancestors 'self' https://chat.example.com", "'wasm-unsafe-eval'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy = %q, want it to contain %q", csp, want)
		}
	}
	body := string(page.body)
	if !regexp.MustCompile(`href="/v/v1\.2\.3-[0-9a-f]{16}/web/app\.css"`).MatchString(body) {
		t.Errorf("page does not link app.css under a versioned URL:\n%s", body)
	}
	if strings.Contains(body, "githubusercontent") || strings.Contains(body, "https://") {
		t.Errorf("page refers to another host:\n%s", body)
	}
	if strings.Contains(body, "user-scalable") || strings.Contains(body, "maximum-scale") || !strings.Contains(body, `name="viewport"`) {
		t.Errorf("the page's viewport forbids zooming or is missing:\n%s", body)
	}
	if got := page.header.Get("Content-Length"); got != strconv.Itoa(len(page.body)) {
		t.Errorf("Content-Length = %s, body has %d bytes", got, len(page.body))
	}
	etag := page.header.Get("ETag")
	if etag == "" {
		t.Fatal("page has no ETag to revalidate by")
	}
	if again := get(t, h, "/", "If-None-Match", etag); again.code != http.StatusNotModified {
		t.Errorf("revalidating the page with its ETag = %d, want 304", again.code)
	}
}

func TestDefaultFrameAncestorsIsSelf(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, "")})
	csp := get(t, h, "/").header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors 'self';") && !strings.HasSuffix(csp, "frame-ancestors 'self'") {
		t.Errorf("Content-Security-Policy = %q, want frame-ancestors 'self' only", csp)
	}
}

func TestBadAllowedOrigin(t *testing.T) {
	if _, err := New(&Options{WebDir: webDir(t, ""), AllowedOrigins: []string{"https://a.example; script-src *"}}); err == nil {
		t.Error("New accepted an allowed origin that injects a CSP directive")
	}
}

// Origins as an operator writes them in a list ("a, b" split on the
// comma) keep the space around each: it is trimmed, not refused.
func TestAllowedOriginsTrimmed(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), AllowedOrigins: []string{" https://a.example", "https://b.example ", "  "}})
	csp := get(t, h, "/").header.Get("Content-Security-Policy")
	if !strings.HasSuffix(csp, "frame-ancestors 'self' https://a.example https://b.example") {
		t.Errorf("Content-Security-Policy = %q, want frame-ancestors 'self' https://a.example https://b.example", csp)
	}
}

func TestWasmEncodings(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), Version: "v1"})
	u := wasmURL(t, h)
	if !strings.HasPrefix(u, "/v/v1-") {
		t.Fatalf("wasm URL %q is not versioned", u)
	}
	tests := []struct {
		accept, encoding string
	}{
		{"gzip, deflate, br, zstd", "br"},
		{"gzip", "gzip"},
		{"br;q=0, gzip", "gzip"},
		{"*", "br"},
		{"", ""},
		{"identity", ""},
	}
	for _, tt := range tests {
		t.Run(tt.accept, func(t *testing.T) {
			res := get(t, h, u, "Accept-Encoding", tt.accept)
			if res.code != http.StatusOK {
				t.Fatalf("GET %s = %d", u, res.code)
			}
			if got := res.header.Get("Content-Encoding"); got != tt.encoding {
				t.Errorf("Content-Encoding = %q, want %q", got, tt.encoding)
			}
			for key, want := range map[string]string{
				"Content-Type":                  "application/wasm",
				"Vary":                          "Accept-Encoding",
				"Cache-Control":                 "public, max-age=31536000, immutable",
				"X-Uncompressed-Content-Length": strconv.Itoa(len(rawWasm)),
			} {
				if got := res.header.Get(key); got != want {
					t.Errorf("%s = %q, want %q", key, got, want)
				}
			}
			if tt.encoding == "" && res.header.Get("Content-Length") != strconv.Itoa(len(rawWasm)) {
				t.Errorf("Content-Length = %q, want %d", res.header.Get("Content-Length"), len(rawWasm))
			}
			var raw []byte
			switch tt.encoding {
			case "br":
				if !bytes.Equal(res.body, brWasm) {
					t.Errorf("brotli body is not app.wasm.br")
				}
				return
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(res.body))
				if err != nil {
					t.Fatal(err)
				}
				raw, _ = io.ReadAll(zr)
			default:
				raw = res.body
			}
			if !bytes.Equal(raw, rawWasm) {
				t.Errorf("decoded body (%d bytes) is not app.wasm (%d bytes)", len(raw), len(rawWasm))
			}
			etag := res.header.Get("ETag")
			if again := get(t, h, u, "Accept-Encoding", tt.accept, "If-None-Match", etag); again.code != http.StatusNotModified {
				t.Errorf("revalidating with %s = %d, want 304", etag, again.code)
			}
		})
	}
	br := get(t, h, u, "Accept-Encoding", "br").header.Get("ETag")
	gz := get(t, h, u, "Accept-Encoding", "gzip").header.Get("ETag")
	if br == gz {
		t.Errorf("brotli and gzip bodies share the ETag %s", br)
	}
	if got := wasmLengthHeader; !strings.Contains(string(get(t, h, "/app.js").body), got) {
		t.Errorf("app.js does not read the raw length from %s", got)
	}
}

func TestVersionFollowsContent(t *testing.T) {
	a := wasmURL(t, newSite(t, &Options{WebDir: webDir(t, "a{}"), Version: "dev"}))
	b := wasmURL(t, newSite(t, &Options{WebDir: webDir(t, "b{}"), Version: "dev"}))
	c := wasmURL(t, newSite(t, &Options{WebDir: webDir(t, "a{}"), Version: "dev"}))
	if a == b {
		t.Errorf("changed app.css, same asset URL %s: browsers would keep the old file for a year", a)
	}
	if a != c {
		t.Errorf("same files, different URLs %s and %s", a, c)
	}
}

// go-app's loader, Go's wasm support and go-app's stylesheet are linked
// under the version and cached for a year, so a second visit starts the
// wasm without asking the bridge about them first; their bare URLs still
// answer, revalidated, and another version's are not found.
// Text goes gzip-compressed to a browser that takes it: the page, go-app's
// scripts and stylesheet, and the web folder's own (app.css, embed.js…),
// two thirds of what a phone downloads before the wasm is asked for.
// The compressed bytes have an ETag of their own, and revalidate to 304.
func TestTextCompressed(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, strings.Repeat("body { color: black; }\n", 100)), Version: "v1.2.3"})
	page := string(get(t, h, "/").body)
	paths := []string{"/"}
	for _, f := range []string{"app.js", "wasm_exec.js", "app.css", "web/app.css"} {
		m := regexp.MustCompile(`"(/v/v1\.2\.3-[0-9a-f]{16}/` + regexp.QuoteMeta(f) + `)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the page does not link %s", f)
		}
		paths = append(paths, m[1])
	}
	for _, p := range paths {
		plain := get(t, h, p)
		zipped := get(t, h, p, "Accept-Encoding", "gzip, deflate, br")
		if zipped.code != http.StatusOK || zipped.header.Get("Content-Encoding") != "gzip" || !strings.Contains(zipped.header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s with gzip accepted: %d, Content-Encoding %q, Vary %q", p, zipped.code, zipped.header.Get("Content-Encoding"), zipped.header.Get("Vary"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		raw, err := io.ReadAll(zr)
		// go-app writes a page's attributes in no set order: the same
		// page, not the same bytes.
		same := bytes.Equal(raw, plain.body) || p == "/" && len(raw) == len(plain.body)
		if err != nil || !same || len(zipped.body) >= len(plain.body) {
			t.Errorf("%s: %d bytes gzip decode to %d (%v), not the %d plain", p, len(zipped.body), len(raw), err, len(plain.body))
		}
		if got := zipped.header.Get("Content-Length"); got != "" && got != strconv.Itoa(len(zipped.body)) {
			t.Errorf("%s: Content-Length %s for %d bytes", p, got, len(zipped.body))
		}
		if plain.header.Get("Content-Encoding") != "" {
			t.Errorf("%s without Accept-Encoding came %s", p, plain.header.Get("Content-Encoding"))
		}
		tag, plainTag := zipped.header.Get("ETag"), plain.header.Get("ETag")
		if tag == "" || tag == plainTag {
			t.Errorf("%s: ETag %q compressed, %q plain: want one of its own", p, tag, plainTag)
		}
		again := get(t, h, p, "Accept-Encoding", "gzip", "If-None-Match", tag)
		if again.code != http.StatusNotModified || again.header.Get("ETag") != tag {
			t.Errorf("%s revalidated with %s: %d, ETag %q; want 304 with the same", p, tag, again.code, again.header.Get("ETag"))
		}
		if again := get(t, h, p, "If-None-Match", plainTag); again.code != http.StatusNotModified {
			t.Errorf("%s revalidated plain with %s: %d, want 304", p, plainTag, again.code)
		}
	}
}

func TestLoaderFilesVersioned(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), Version: "v1.2.3"})
	page := string(get(t, h, "/").body)
	for _, f := range []string{"app.js", "wasm_exec.js", "app.css"} {
		if strings.Contains(page, `"/`+f+`"`) {
			t.Errorf("the page links /%s, which a browser revalidates on every visit:\n%s", f, page)
		}
		m := regexp.MustCompile(`"(/v/v1\.2\.3-[0-9a-f]{16}/` + regexp.QuoteMeta(f) + `)"`).FindStringSubmatch(page)
		if m == nil {
			t.Errorf("the page does not link %s under the version:\n%s", f, page)
			continue
		}
		versioned, bare := get(t, h, m[1]), get(t, h, "/"+f)
		if versioned.code != http.StatusOK || len(versioned.body) == 0 || !bytes.Equal(versioned.body, bare.body) {
			t.Errorf("GET %s = %d, %d bytes; want 200 and the %d bytes of /%s", m[1], versioned.code, len(versioned.body), len(bare.body), f)
		}
		if got := versioned.header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q, want immutable for a year", m[1], got)
		}
		if got, want := versioned.header.Get("Content-Type"), bare.header.Get("Content-Type"); got != want || got == "" {
			t.Errorf("%s: Content-Type %q, want %q", m[1], got, want)
		}
		if got := bare.header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("/%s: Cache-Control %q, want no-cache", f, got)
		}
		if res := get(t, h, "/v/v1.2.2-0123456789abcdef/"+f); res.code != http.StatusNotFound {
			t.Errorf("another version's %s: %d, want 404", f, res.code)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, m[1], nil))
		if w.Code != http.StatusMethodNotAllowed {
			t.Errorf("POST %s = %d, want 405", m[1], w.Code)
		}
	}
	// go-app's loader carries Env: another Env is other bytes, so it
	// must be another URL.
	other := wasmURL(t, newSite(t, &Options{WebDir: webDir(t, ""), Version: "v1.2.3", Env: map[string]string{"FORMBRIDGE_TEST": "1"}}))
	if same := wasmURL(t, h); other == same {
		t.Errorf("another Env, same versioned URLs (%s): browsers would keep the old loader for a year", same)
	}
	if n := len(regexp.MustCompile(`"/v/[^"/]+/app\.css"`).FindAllString(page, -1)); n != 2 {
		t.Errorf("the page names go-app's stylesheet %d times, want 2 (preloaded, then linked):\n%s", n, page)
	}
}

func TestStableAndStaleURLs(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, "")})
	js := get(t, h, "/web/embed.js")
	if js.code != http.StatusOK || js.header.Get("Cache-Control") != "no-cache" || js.header.Get("ETag") == "" {
		t.Errorf("GET /web/embed.js = %d, Cache-Control %q, ETag %q; want 200, no-cache and an ETag",
			js.code, js.header.Get("Cache-Control"), js.header.Get("ETag"))
	}
	if !strings.HasPrefix(js.header.Get("Content-Type"), "text/javascript") {
		t.Errorf("embed.js Content-Type = %q", js.header.Get("Content-Type"))
	}
	if again := get(t, h, "/web/embed.js", "If-None-Match", js.header.Get("ETag")); again.code != http.StatusNotModified {
		t.Errorf("revalidating embed.js = %d, want 304", again.code)
	}
	for _, p := range []string{"/v/0123456789abcdef/web/app.css", "/web/app.wasm.br", "/web/missing.css"} {
		if res := get(t, h, p); res.code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, res.code)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/web/embed.js", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /web/embed.js = %d, want 405", w.Code)
	}
}

func TestNoExternalHostOrFetchHijack(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), Env: map[string]string{"FORMBRIDGE_TEST": "1"}})
	worker := string(get(t, h, "/app-worker.js").body)
	if strings.Contains(worker, `"fetch"`) {
		t.Errorf("service worker intercepts fetches:\n%s", worker)
	}
	manifest := string(get(t, h, "/manifest.webmanifest").body)
	if strings.Contains(manifest, "http") || !strings.Contains(manifest, "/web/icons/icon.svg") {
		t.Errorf("manifest does not use the local icons:\n%s", manifest)
	}
	if js := string(get(t, h, "/app.js").body); !strings.Contains(js, `"FORMBRIDGE_TEST":"1"`) {
		t.Errorf("app.js does not pass Env to the wasm:\n%s", js)
	}
}

// deferredScript finds the page's script tag for the web folder's file
// name, which must load deferred from a versioned URL, and returns that
// URL and where the tag starts in page.
func deferredScript(t *testing.T, page, name string) (src string, at int) {
	t.Helper()
	tag, src, at := scriptTag(page, name)
	if !strings.Contains(tag, " defer") {
		t.Fatalf("the page does not load %s deferred from a versioned URL:\n%s", name, page)
	}
	return src, at
}

// scriptTag is the <script> element that loads the web folder's name
// from a versioned URL: the whole tag, its src and where it starts; ""
// when there is none.
func scriptTag(page, name string) (tag, src string, at int) {
	// go-app writes attributes in no fixed order.
	m := regexp.MustCompile(`<script( [^>]*)? src="(/v/[^"]+/web/` + regexp.QuoteMeta(name) + `)"( [^>]*)?>`).FindStringSubmatchIndex(page)
	if m == nil {
		return "", "", -1
	}
	return page[m[0]:m[1]], page[m[4]:m[5]], m[0]
}

// pageWithout is the widget page of a web folder without its file name.
func pageWithout(t *testing.T, name string) string {
	t.Helper()
	dir := webDir(t, "")
	if err := os.Remove(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return string(get(t, newSite(t, &Options{WebDir: dir}), "/").body)
}

// Scripts (the demo's panel) load deferred from their immutable URL; a
// script the web folder does not hold is a start-up error, not a 404.
func TestScripts(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), Scripts: []string{"/web/demo.js"}})
	src, _ := deferredScript(t, string(get(t, h, "/").body), "demo.js")
	res := get(t, h, src)
	if res.code != http.StatusOK || string(res.body) != "// demo" || !strings.Contains(res.header.Get("Cache-Control"), "immutable") {
		t.Errorf("GET %s = %d %q, Cache-Control %q", src, res.code, res.body, res.header.Get("Cache-Control"))
	}
	if page := string(get(t, newSite(t, &Options{WebDir: webDir(t, "")}), "/").body); strings.Contains(page, "demo.js") {
		t.Error("a page without Scripts loads demo.js")
	}
	for _, bad := range []string{"/web/missing.js", "https://cdn.example/x.js", "demo.js"} {
		if _, err := New(&Options{WebDir: webDir(t, ""), Scripts: []string{bad}}); err == nil {
			t.Errorf("Scripts %q accepted", bad)
		}
	}
}

// Every widget page loads the warm-up (warmup.js) deferred, from its
// immutable URL and before the Scripts asked for; a web folder without
// one (a floor of the benchmarks) gives a page without it.
func TestWarmupScript(t *testing.T) {
	page := string(get(t, newSite(t, &Options{WebDir: webDir(t, ""), Scripts: []string{"/web/demo.js"}}), "/").body)
	_, warm := deferredScript(t, page, "warmup.js")
	if demo := strings.Index(page, "/web/demo.js"); demo < 0 || demo < warm {
		t.Errorf("demo.js is missing or linked before warmup.js:\n%s", page)
	}
	if page := pageWithout(t, "warmup.js"); strings.Contains(page, "warmup.js") {
		t.Errorf("a web folder without warmup.js gives a page loading it:\n%s", page)
	}
}

// Every widget page runs the storage stand-in (storage.js) as it is
// parsed, before go-app's deferred loader, from the page itself; a web
// folder without one gives a page without it.
func TestStorageScript(t *testing.T) {
	page := inlineScript(t, "storage.js")
	// The whole tag: go-app writes its attributes in no fixed order.
	if loader := regexp.MustCompile(`<script[^>]* src="[^"]*/app\.js"[^>]*>`).FindString(page); !strings.Contains(loader, " defer") {
		t.Errorf("go-app's loader is not deferred, so storage.js may come after it:\n%s", page)
	}
}

// The bridge's page runs connect.js (the connection opened while the
// wasm loads) as it is parsed, from the page itself; a web folder
// without one gives a page without it.
func TestConnectScript(t *testing.T) {
	inlineScript(t, "connect.js")
}

// inlineScript checks that the widget page carries the web folder's
// script name inline (wantInline), for the test folder and for the
// folder embedded in the binary, and that a folder without it gives a
// page without it. It returns the test folder's page.
func inlineScript(t *testing.T, name string) string {
	t.Helper()
	file, err := os.ReadFile(filepath.Join(webDir(t, ""), name))
	if err != nil {
		t.Fatal(err)
	}
	page := wantInline(t, &Options{WebDir: webDir(t, "")}, name, string(file))
	embedded, err := fs.ReadFile(web.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	// The real script: one that stopped being inlinable would quietly
	// be linked again, and hold the parser.
	wantInline(t, nil, name, string(embedded))
	if without := pageWithout(t, name); strings.Contains(without, name) {
		t.Errorf("a web folder without %s gives a page with it:\n%s", name, without)
	}
	return page
}

// wantInline checks that the page of a site made with opts carries the
// script name inline, as want with its sourceURL comment, not linked,
// allowed by its hash in a policy that allows no other inline script.
// It returns the page.
func wantInline(t *testing.T, opts *Options, name, want string) string {
	t.Helper()
	res := get(t, newSite(t, opts), "/")
	page := string(res.body)
	text, ok := pageInlineScript(page, name)
	if !ok {
		t.Fatalf("the page does not carry %s:\n%s", name, page)
	}
	if want += "\n//# sourceURL=" + name + "\n"; text != want {
		t.Errorf("the page's %s is %q, want %q", name, text, want)
	}
	csp := res.header.Get("Content-Security-Policy")
	scripts := regexp.MustCompile(`script-src [^;]*`).FindString(csp)
	if !strings.Contains(scripts, hashSource(text)) {
		t.Errorf("the policy's %q does not allow the page's %s by its hash", scripts, name)
	}
	for _, loose := range []string{"'unsafe-inline'", "'unsafe-eval'", "'strict-dynamic'", "*", "data:", "http:", "https:"} {
		if strings.Contains(scripts, loose) {
			t.Errorf("the policy's %q allows %s", scripts, loose)
		}
	}
	if tag, _, _ := scriptTag(page, name); tag != "" {
		t.Errorf("the page also links %s: %s", name, tag)
	}
	// An inline script waits for every stylesheet linked before it: on a
	// first visit connect.js would open its connection only once both
	// had come.
	if sheet := strings.Index(page, `rel="stylesheet"`); sheet >= 0 && strings.Index(page, text) > sheet {
		t.Errorf("the page runs %s after a stylesheet:\n%s", name, page)
	}
	return page
}

// hashSource is the policy source that allows an inline script of text,
// worked out here independently of the package's own.
func hashSource(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// pageInlineScript is the text of the page's inline script named name by
// its sourceURL comment.
func pageInlineScript(page, name string) (string, bool) {
	m := regexp.MustCompile(`(?s)<script>((?:[^<]|<[^/])*?//# sourceURL=` + regexp.QuoteMeta(name) + `\n)</script>`).FindStringSubmatch(page)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// An inline script is the text the browser reads and hashes: line ends
// as the HTML parser leaves them, and the page's own rewriting of
// go-app's links does not reach into it.
func TestInlineScriptText(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"a();\r\nb();\rc();\n", "a();\nb();\nc();\n"},
		{`fetch("/app.css"); s.src="/app.js"; h = '<link href="/app.css"> <img src="/wasm_exec.js">'; if (i < n) {}`, `fetch("/app.css"); s.src="/app.js"; h = '<link href="/app.css"> <img src="/wasm_exec.js">'; if (i < n) {}`},
	} {
		dir := webDir(t, "")
		if err := os.WriteFile(filepath.Join(dir, "connect.js"), []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		wantInline(t, &Options{WebDir: dir}, "connect.js", tc.want)
	}
}

// A script whose text would end the page's script element early, change
// how the parser reads on, or be changed by the parser (so its hash
// would not match) is not put in the page: it is linked from its
// immutable URL, as a plain script, so it still runs as the page is
// parsed.
func TestScriptThatCannotBeInline(t *testing.T) {
	for _, text := range []string{
		`const s = "</script><img src=x onerror=alert(1)>";`,
		"x = '</SCRIPT >'",
		"// <!-- a comment",
		"// <script",
		"a = '\x00';",
		"a = '\xff\xfe';",
	} {
		dir := webDir(t, "")
		if err := os.WriteFile(filepath.Join(dir, "connect.js"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		res := get(t, newSite(t, &Options{WebDir: dir}), "/")
		page := string(res.body)
		if _, ok := pageInlineScript(page, "connect.js"); ok || strings.Contains(page, text) {
			t.Errorf("the page carries %q inline:\n%s", text, page)
		}
		tag, src, _ := scriptTag(page, "connect.js")
		if tag == "" || strings.Contains(tag, "defer") || strings.Contains(tag, "async") {
			t.Errorf("connect.js with %q is not linked as a plain script: %q", text, tag)
			continue
		}
		if js := get(t, newSite(t, &Options{WebDir: dir}), src); js.code != http.StatusOK || string(js.body) != text {
			t.Errorf("GET %s = %d %q", src, js.code, js.body)
		}
		if _, ok := pageInlineScript(page, "storage.js"); !ok {
			t.Errorf("storage.js is no longer inline beside a linked connect.js:\n%s", page)
		}
	}
}

func TestEmbeddedWebFolder(t *testing.T) {
	h := newSite(t, nil)
	if res := get(t, h, "/web/icons/icon.svg"); res.code != http.StatusOK || res.header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("embedded icon: %d %q", res.code, res.header.Get("Content-Type"))
	}
	if res := get(t, h, "/web/web.go"); res.code != http.StatusNotFound {
		t.Errorf("GET /web/web.go = %d, want 404 (sources are not assets)", res.code)
	}
}

func TestStalePrecompressedCopiesAreDropped(t *testing.T) {
	dir := webDir(t, "")
	// A gzip copy of an older build, and a brotli copy still being written.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("an older wasm"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "app.wasm.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.wasm.br"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newSite(t, &Options{WebDir: dir})
	res := get(t, h, wasmURL(t, h), "Accept-Encoding", "br, gzip")
	if enc := res.header.Get("Content-Encoding"); enc != "" || !bytes.Equal(res.body, rawWasm) {
		t.Errorf("served %q-encoded %d bytes, want the raw app.wasm", enc, len(res.body))
	}
}

// A brotli copy, which the bridge cannot decode to check, is stale when
// the wasm was rebuilt after it (go build instead of make wasm).
func TestBrotliCopyOlderThanTheWasmIsDropped(t *testing.T) {
	for _, tt := range []struct {
		name  string
		age   time.Duration // of the brotli copy, against the wasm
		fresh bool
	}{
		{"written after the wasm", -time.Minute, true},
		{"copied a moment before the wasm", time.Second, true},
		{"older than the wasm", time.Minute, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := webDir(t, "")
			wasmTime := time.Now().Add(-time.Hour)
			br := filepath.Join(dir, "app.wasm.br")
			if err := os.Chtimes(filepath.Join(dir, "app.wasm"), wasmTime, wasmTime); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(br, wasmTime.Add(-tt.age), wasmTime.Add(-tt.age)); err != nil {
				t.Fatal(err)
			}
			h := newSite(t, &Options{WebDir: dir})
			res := get(t, h, wasmURL(t, h), "Accept-Encoding", "br, gzip")
			want := "gzip"
			if tt.fresh {
				want = "br"
			}
			if enc := res.header.Get("Content-Encoding"); enc != want {
				t.Errorf("served %q, want %q", enc, want)
			}
		})
	}
}

// A web folder that is not there is named in the error, not "stat .".
func TestMissingWebDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no-such-folder")
	if _, err := New(&Options{WebDir: dir}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("New: %v; want an error naming %s", err, dir)
	}
	if err := GenerateStatic(filepath.Join(t.TempDir(), "out"), &StaticOptions{WebDir: dir}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("GenerateStatic: %v; want an error naming %s", err, dir)
	}
}
