package site

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"github.com/formbridge/formbridge/app/embed"
)

// StaticOptions configure GenerateStatic. The zero value writes a site
// for the root of its host from the web folder embedded in the binary.
type StaticOptions struct {
	WebDir  string // folder with app.css, app.wasm(.br/.gz), icons, embed.js; "" = embedded
	Version string // build version
	// Prefix is the URL path the site is served under, e.g. "/approvals/"
	// for a GitHub Pages project site; "" or "/" for the root of a host.
	Prefix string
	Env    map[string]string // passed to the wasm, as Options.Env
}

// ConfigEnv names the variable a static widget finds its config.json
// URL path in. The bridge's own page never sets it: that page's bridge is
// its own origin, so it has nothing to fetch.
const ConfigEnv = embed.ConfigEnv

// ConfigFile is the file next to a static site's index.html that may name
// the bridge, e.g. {"bridge": "wss://bridge.example.com/ws"}.
const ConfigFile = "config.json"

// GenerateStatic writes the widget as a static site into dir: the pages
// and scripts go-app renders (index.html, app.js, app-worker.js,
// wasm_exec.js, manifest.webmanifest, app.css) and a copy of the web
// folder with the wasm's precompressed copies, so any static file host
// can serve it at Prefix with no code of ours on the server.
//
// Files already in dir are overwritten; others are left, so a deployment
// can keep its own config.json there.
func GenerateStatic(dir string, opts *StaticOptions) error {
	if opts == nil {
		opts = &StaticOptions{}
	}
	prefix, err := cleanPrefix(opts.Prefix)
	if err != nil {
		return err
	}
	fsys, err := webFolder(opts.WebDir)
	if err != nil {
		return err
	}
	files, err := loadAssets(fsys)
	if err != nil {
		return err
	}
	if files.files["app.wasm"] == nil {
		return errors.New("the web folder has no app.wasm: build it first (make wasm)")
	}
	registerRoutes()

	env := map[string]string{}
	for k, v := range opts.Env {
		env[k] = v
	}
	env[ConfigEnv] = prefix + "/" + ConfigFile
	version := contentVersion(opts.Version, files, env)
	// No WasmContentLengthHeader: a static host sends what it sends, and
	// the loader falls back to Content-Length.
	h := newAppHandler(version, env, prefixedResources{prefix: prefix})
	scripts := widgetScripts(files, ConnectScript, StorageScript)
	// The policy first (and the page's head starts with these, see
	// rawHeadersFirst): it rules only what follows it. The referrer
	// policy is the bridge's header, for a host that sends none: a link
	// the widget opens is not told the page it came from. connect.js
	// finds config.json and the version by the meta elements before it.
	h.RawHeaders = append(append([]string{
		staticPolicy(scripts.hashes),
		`<meta name="referrer" content="no-referrer">`,
		`<meta name="formbridge-config" content="` + html.EscapeString(env[ConfigEnv]) + `">`,
		wasmPreload(h.Resources.AppWASM()), // the URL h's loader fetches
	}, versionMeta(version)...), scripts.inline...)
	h.Scripts = scripts.linked
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("failed to create %s: %w", dir, err)
	}
	if err := app.GenerateStaticWebsite(dir, h); err != nil {
		return fmt.Errorf("failed to render the widget's pages: %w", err)
	}
	if err := fixPage(filepath.Join(dir, "index.html"), h.RawHeaders); err != nil {
		return err
	}
	return copyWeb(fsys, filepath.Join(dir, "web"))
}

// renderURL matches the og:url go-app writes from the request it rendered
// the page for: here a throwaway loopback server, whose address means
// nothing on the host the site is published to. The page has no one true
// URL (it is copied to any host), so the tag is removed, not rewritten.
// go-app writes attributes in map order, so either order is matched.
var renderURL = regexp.MustCompile(`<meta (?:content="http://127\.0\.0\.1:[0-9]+/[^"]*" property="og:url"|property="og:url" content="http://127\.0\.0\.1:[0-9]+/[^"]*")>\n?`)

// fixPage makes the changes servePage makes to the bridge's page, less
// the versioned loader, to the rendered page, and drops its og:url.
func fixPage(name string, rawHeaders []string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("failed to read the rendered page: %w", err)
	}
	b = renderURL.ReplaceAll(b, nil)
	b = bytes.Replace(b, []byte(goappViewport), []byte(viewport), 1)
	b = rawHeadersFirst(b, rawHeaders)
	return os.WriteFile(name, b, 0o644)
}

// staticPolicy is the bridge's Content-Security-Policy (headers.go) for a
// host that sends none, as a meta tag, with one difference: the widget
// may open a WebSocket to any bridge, since the link or config.json names
// it. A meta policy cannot say frame-ancestors; docs/EMBED.md asks hosts
// that can set headers to send it.
func staticPolicy(scriptHashes []string) string {
	return `<meta http-equiv="Content-Security-Policy" content="default-src 'self'; ` +
		scriptSrc(scriptHashes) +
		`; style-src 'self'; style-src-attr 'unsafe-inline'; ` +
		`img-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; form-action 'none'">`
}

// cleanPrefix turns "approvals", "/approvals/" or "/a/b" into "/approvals"
// or "/a/b", and "" or "/" into "". It refuses what would not stay a path
// on the same host once written into the page's URLs.
func cleanPrefix(p string) (string, error) {
	p = strings.Trim(strings.TrimSpace(p), "/")
	if p == "" {
		return "", nil
	}
	if strings.ContainsAny(p, "?#\\\"'<> \t\r\n") || strings.Contains(p, "//") || strings.Contains(p, ":") {
		return "", fmt.Errorf("--prefix %q is not a URL path such as /approvals/", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return "", fmt.Errorf("--prefix %q must not contain . or .. segments", p)
		}
	}
	return "/" + p, nil
}

// copyWeb copies the web folder into dst, precompressed copies included;
// not its Go sources (they only embed it), the demo's panel, nor
// connect.js, which the page carries in itself. Static
// hosts that honour the precompressed copies (nginx gzip_static, a CDN's
// precompressed objects) send 1.6 MB instead of 8 MB; others still have
// app.wasm itself.
func copyWeb(fsys fs.FS, dst string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if path.Ext(p) == ".go" || p == DemoScript || p == ConnectScript {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return fmt.Errorf("failed to write %s: %w", target, err)
		}
		return nil
	})
}

// prefixedResources makes go-app link every script, style and the wasm
// under the site's prefix: "/approvals/web/app.wasm" rather than
// "/web/app.wasm". go-app's CustomProvider would write "//web/app.wasm"
// (a URL on another host) for the root, so the root gets "" here.
type prefixedResources struct{ prefix string } // "" or "/approvals"

func (p prefixedResources) Package() string { return p.prefix }
func (p prefixedResources) Static() string  { return p.prefix }
func (p prefixedResources) AppWASM() string { return p.prefix + "/web/app.wasm" }
