// Package site serves the widget: the go-app page, its scripts, and the
// web folder (app.css, icons, embed.js, app.wasm precompressed), with
// caching and security headers fit for a page that hosts embed in an
// iframe and people open from a link.
package site

import (
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"github.com/formbridge/formbridge/web"
)

// Options configure New. The zero value serves the web folder embedded in
// the binary.
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
	appTitle       = "formbridge: questions waiting for you"
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
	var fsys fs.FS = web.FS
	if opts.WebDir != "" {
		fsys = os.DirFS(opts.WebDir)
	}
	files, err := loadAssets(fsys)
	if err != nil {
		return nil, err
	}
	sec, err := newSecurityHeaders(opts.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	registerRoutes()

	// The version names the build and the exact web folder, so a rebuilt
	// wasm always gets new URLs even when the build version string is
	// unchanged (a "dev" build), and unchanged files keep theirs.
	version := files.hash[:16]
	if opts.Version != "" {
		version = opts.Version + "-" + version
	}
	static := "/v/" + version
	scripts := widgetScripts(files)
	if files.files[ConnectScript] != nil {
		scripts = append([]string{"/web/" + ConnectScript}, scripts...)
	}
	for _, src := range opts.Scripts {
		name, ok := strings.CutPrefix(src, "/web/")
		if !ok || files.files[name] == nil {
			return nil, fmt.Errorf("site: script %q is not a file of the web folder (want /web/<name>)", src)
		}
		scripts = append(scripts, src+" defer")
	}
	env := map[string]string{}
	maps.Copy(env, opts.Env) // go-app writes into the map it is given

	s := &site{
		assets:    files,
		security:  sec,
		versioned: static + "/web/",
		app:       newAppHandler(version, env, versionedResources{static: static}),
	}
	s.app.WasmContentLengthHeader = wasmLengthHeader
	s.app.Scripts = scripts // go-app links them under the versioned URL
	return s, nil
}

// DemoScript is the web folder's file with the demo's panel, which only
// the demo's page loads (Options.Scripts); a static site has no demo and
// leaves it out.
const DemoScript = "demo.js"

// WarmupScript is the web folder's file that lays out a hidden sample
// form while the wasm loads, so the first real form does not pay a tab's
// first layout of form controls. Pages link it when the folder has it.
const WarmupScript = "warmup.js"

// ConnectScript is the web folder's file that connects to the bridge and
// says hello while the wasm loads, for the widget to take over. Only the
// bridge's own page links it, first and neither deferred nor async (it
// must start before the page is parsed), when the folder has it: a static
// site's bridge is named by its config.json, which the script cannot read.
const ConnectScript = "connect.js"

// StorageScript is the web folder's file that stands in for the page's
// storage when the browser blocks it (go-app stops at start without).
// Pages link it, without defer, when the folder has it.
const StorageScript = "storage.js"

// widgetScripts are the scripts of the web folder every widget page
// loads, when the folder has them (a folder for some other go-app
// program, like the benchmarks' floors, does not): the storage stand-in
// at once, before go-app's deferred loader runs; then, deferred after
// it, the warm-up.
func widgetScripts(files *assets) []string {
	var scripts []string
	if files.files[StorageScript] != nil {
		scripts = append(scripts, "/web/"+StorageScript)
	}
	if files.files[WarmupScript] != nil {
		scripts = append(scripts, "/web/"+WarmupScript+" defer")
	}
	return scripts
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
	versioned string // "/v/<version>/web/": URLs the page links to, immutable
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
			if strings.HasPrefix(p, "/v/") {
				// An older or newer version's asset: never serve other
				// bytes under an immutable URL.
				http.NotFound(w, r)
				return
			}
			s.servePage(w, r)
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	f := s.assets.files[name]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	f.serve(w, r, immutable)
}

// versionedResources makes go-app link the web folder under a URL that
// changes with its content, so those URLs can be cached for a year.
// It is not an http.Handler, so go-app leaves serving them to site.
type versionedResources struct{ static string }

func (v versionedResources) Package() string { return "" }
func (v versionedResources) Static() string  { return v.static }
func (v versionedResources) AppWASM() string { return v.static + "/web/app.wasm" }
