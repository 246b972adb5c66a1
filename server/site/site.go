// Package site serves the widget: the go-app page, its scripts, and the
// web folder (app.css, icons, embed.js, app.wasm precompressed), with
// caching and security headers fit for a page that hosts embed in an
// iframe and people open from a link.
package site

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Options configure New. The zero value serves the web folder embedded in
// the binary. That folder holds app.wasm only when the binary was built in
// a clone of formbridge after make wasm: the wasm is not committed, so a
// program that fetched this module with go get embeds none, and its page
// cannot start. Such a program names a built web folder in WebDir.
type Options struct {
	WebDir         string            // folder with app.css, app.wasm(.br/.gz), icons, embed.js, warmup.js, connect.js; "" = embedded
	Version        string            // build version (Handler.Version)
	AllowedOrigins []string          // frame-ancestors
	Env            map[string]string // passed to the wasm (app.Getenv)
	// Scripts are files of the web folder the page loads besides the
	// widget, by their URL under /web/ (e.g. "/web/demo.js", the demo's
	// panel). They run deferred, in order, after the widget's loader and
	// warmup.js.
	Scripts []string
}

// Words an approver sees: the browser tab, an installed app's name, and
// link previews.
const (
	appName        = "formbridge"
	appTitle       = "formbridge: requests for you"
	appDescription = "Answer the questions and approvals your AI tools send you, one clear form at a time."
	loadingLabel   = "Getting ready… {progress}%"
)

// wasmLengthHeader tells go-app's loader where to find the wasm's raw length.
const wasmLengthHeader = rawLengthHeader

// New returns the handler of the widget site, to be served at "/". The web
// folder is read once here.
func New(opts *Options) (http.Handler, error) {
	if opts == nil {
		opts = &Options{}
	}
	fsys, err := webFolder(opts.WebDir)
	if err != nil {
		return nil, err
	}
	files, err := loadAssets(fsys)
	if err != nil {
		return nil, err
	}
	scripts := widgetScripts(files, ConnectScript, StorageScript)
	sec, err := newSecurityHeaders(opts.AllowedOrigins, scripts.hashes)
	if err != nil {
		return nil, err
	}
	registerRoutes()

	env := map[string]string{}
	maps.Copy(env, opts.Env) // go-app writes into the map it is given
	version := contentVersion(opts.Version, files, env)
	static := "/v/" + version
	linked := scripts.linked
	for _, src := range opts.Scripts {
		name, ok := strings.CutPrefix(src, "/web/")
		if !ok || files.files[name] == nil {
			return nil, fmt.Errorf("site: script %q is not a file of the web folder (want /web/<name>)", src)
		}
		linked = append(linked, src+" defer")
	}
	s := &site{
		assets:    files,
		security:  sec,
		static:    static,
		versioned: static + "/web/",
		app:       newAppHandler(version, env, versionedResources{static: static}),
		sendStall: SendStall,
	}
	s.app.WasmContentLengthHeader = wasmLengthHeader
	s.app.Scripts = linked // go-app links them under the versioned URL
	// The version first: connect.js reads it as it runs. The preload is
	// of the URL the handler's loader fetches, read from the handler.
	head := append(versionMeta(version), wasmPreload(s.app.Resources.AppWASM()))
	s.app.RawHeaders = append(head, scripts.inline...)
	return s, nil
}

// contentVersion names what the versioned URLs hold: the build version,
// then a hash of the web folder and of what go-app's generated files
// hold besides (the Env its loader carries, Go's wasm support from this
// toolchain, go-app's own version). A rebuilt wasm, or a changed Env,
// always gets new URLs even when the build version string is unchanged
// (a "dev" build), so no URL cached for a year ever means other bytes;
// unchanged files keep theirs.
func contentVersion(build string, files *assets, env map[string]string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", files.hash, runtime.Version(), goappVersion())
	for _, k := range slices.Sorted(maps.Keys(env)) {
		fmt.Fprintf(h, "%q=%q\x00", k, env[k])
	}
	version := hex.EncodeToString(h.Sum(nil))[:16]
	if build != "" {
		version = build + "-" + version
	}
	return version
}

// goappVersion is the go-app module this binary was built with, "" when
// the binary does not say.
func goappVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range info.Deps {
		if d.Path == "github.com/maxence-charriere/go-app/v9" {
			return d.Version
		}
	}
	return ""
}

// newAppHandler is go-app's handler as both the bridge's page and the
// static site use it: local icons, the stylesheet, the words an approver
// sees, and a service worker that intercepts nothing.
func newAppHandler(version string, env map[string]string, res app.ResourceProvider) *app.Handler {
	return &app.Handler{
		Name:        appName,
		ShortName:   appName,
		Title:       appTitle,
		Description: appDescription,
		Author:      appName,
		Lang:        "en",
		Icon: app.Icon{
			Default:    "/web/icons/icon-192.png",
			Large:      "/web/icons/icon-512.png",
			SVG:        "/web/icons/icon.svg",
			AppleTouch: "/web/icons/icon-192.png",
		},
		BackgroundColor:       "#ffffff",
		ThemeColor:            "#2f5bd3",
		LoadingLabel:          loadingLabel,
		Styles:                []string{"/web/app.css"},
		Env:                   env,
		Version:               version,
		ServiceWorkerTemplate: serviceWorker,
		Resources:             res,
	}
}

// site routes between the web folder and go-app's handler.
type site struct {
	app       *app.Handler
	assets    *assets
	security  *securityHeaders
	static    string        // "/v/<version>"
	versioned string        // "/v/<version>/web/": URLs the page links to, immutable
	sendStall time.Duration // SendStall; tests shorten it
}

// loaderFiles are what go-app generates and the page links from the
// site's root: its loader, Go's wasm support and its stylesheet. They
// change only with the build, so the page links them under the version
// instead, cached for a year: on a second visit the browser runs the
// loader, which starts the wasm, without first asking the bridge whether
// they changed (a round trip on a real network; on loopback the answers
// queued behind the page's own scripts).
var loaderFiles = []string{"/app.js", "/wasm_exec.js", "/app.css"}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = newStallWriter(w, r, s.sendStall)
	s.security.set(w.Header())
	p := r.URL.Path
	name, immutable := strings.CutPrefix(p, s.versioned)
	if !immutable {
		var ok bool
		// Stable URLs for what other pages link to (embed.js, icons).
		name, ok = strings.CutPrefix(p, "/web/")
		if !ok && strings.HasPrefix(p, "/examples/") {
			// The embedding examples (web/examples), e.g. /examples/chat.html.
			name, ok = p[1:], true
		}
		if !ok {
			if f, ok := strings.CutPrefix(p, s.static); ok && slices.Contains(loaderFiles, f) {
				if !readOnly(w, r) {
					return
				}
				r2 := r.Clone(r.Context())
				r2.URL.Path = f
				s.servePage(w, r2, true)
				return
			}
			if strings.HasPrefix(p, "/v/") {
				// An older or newer version's asset: never serve other
				// bytes under an immutable URL.
				http.NotFound(w, r)
				return
			}
			s.servePage(w, r, false)
			return
		}
	}
	if !readOnly(w, r) {
		return
	}
	f := s.assets.files[name]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	f.serve(w, r, immutable)
}

// readOnly reports whether r is a GET or HEAD, the only methods a file
// answers; it answers any other with 405 itself.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}

// versionedResources makes go-app link the web folder under a URL that
// changes with its content, so those URLs can be cached for a year.
// It is not an http.Handler, so go-app leaves serving them to site.
type versionedResources struct{ static string }

func (v versionedResources) Package() string { return "" }
func (v versionedResources) Static() string  { return v.static }
func (v versionedResources) AppWASM() string { return v.static + "/web/app.wasm" }
