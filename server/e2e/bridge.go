package e2e

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/site"
)

// Options configure StartBridge. The zero value is a bridge with default
// limits, a generated token and the repository's web folder.
type Options struct {
	Hub    hub.Options // DefaultToken generated when ""
	APIKey string      // of the HTTP API; "" turns the API off
	WebDir string      // default: the repository's web folder (with the built app.wasm)
	Env    map[string]string
	// WrapGateway, when set, wraps the WebSocket endpoint: a test can
	// slow or refuse a handshake with it.
	WrapGateway func(http.Handler) http.Handler
}

// Bridge is a running bridge on 127.0.0.1.
type Bridge struct {
	URL    string // http://127.0.0.1:port, no trailing slash
	Token  string // of channel "default"
	APIKey string
	Hub    *hub.Hub

	mu       sync.Mutex
	widgets  map[net.Conn]bool // upgraded connections still open
	upgrades int
	requests []string // "GET /path" of every HTTP request, in order
	clients  []wire.Implementation
}

// WebDir is the repository's web folder, where make wasm writes app.wasm,
// or $FORMBRIDGE_WEB_DIR when set (a copy that no build rewrites while the
// tests read it).
func WebDir() string {
	if dir := os.Getenv("FORMBRIDGE_WEB_DIR"); dir != "" {
		return dir
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "web"))
	if err != nil {
		return filepath.Join("..", "..", "web")
	}
	return dir
}

// StartBridge serves hub + gateway (wire.Path) + API ("/api/v1/") + site ("/") on a free
// loopback port until the test ends.
func StartBridge(t testing.TB, opts *Options) *Bridge {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.WebDir == "" {
		o.WebDir = WebDir()
	}
	if fi, err := os.Stat(o.WebDir); err != nil || !fi.IsDir() {
		skipOrFail(t, "the web folder "+o.WebDir+" is missing")
	}
	if o.Hub.ServerInfo.Name == "" {
		o.Hub.ServerInfo = wire.Implementation{Name: "formbridge", Version: "e2e"}
	}
	h := hub.New(&o.Hub)
	siteHandler, err := site.New(&site.Options{WebDir: o.WebDir, Version: "e2e", Env: o.Env})
	if err != nil {
		t.Fatalf("site: %v", err)
	}
	mux := http.NewServeMux()
	b := &Bridge{Hub: h, APIKey: o.APIKey, Token: h.DefaultToken(), widgets: map[net.Conn]bool{}}
	var gw http.Handler = gateway.New(h, &gateway.Options{Logger: slog.New(helloLog{b})})
	if o.WrapGateway != nil {
		gw = o.WrapGateway(gw)
	}
	mux.Handle(wire.Path, gw)
	mux.Handle("/api/v1/", api.New(h, &api.Options{APIKey: o.APIKey}))
	mux.Handle("/", siteHandler)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.requests = append(b.requests, r.Method+" "+r.URL.Path)
		b.mu.Unlock()
		mux.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: logged, ReadHeaderTimeout: 10 * time.Second, ConnState: b.track}
	go srv.Serve(ln)
	t.Cleanup(func() {
		// Settle every pending caller first, then drop the connections.
		h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
	})
	b.URL = "http://" + ln.Addr().String()
	return b
}

// Clients are the clientInfo names and versions of the widgets that
// said hello, in order, as the bridge's log gives them.
func (b *Bridge) Clients() []wire.Implementation {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.clients)
}

// helloLog keeps, for Bridge.Clients, what each widget said of itself in
// the gateway's "widget connected" log line: what an operator reads.
type helloLog struct{ b *Bridge }

func (helloLog) Enabled(context.Context, slog.Level) bool { return true }

func (l helloLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "widget connected" {
		return nil
	}
	var c wire.Implementation
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "client":
			c.Name = a.Value.String()
		case "version":
			c.Version = a.Value.String()
		}
		return true
	})
	l.b.mu.Lock()
	l.b.clients = append(l.b.clients, c)
	l.b.mu.Unlock()
	return nil
}

func (l helloLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l helloLog) WithGroup(string) slog.Handler      { return l }

// track keeps the connections taken over by the WebSocket upgrade, so a
// test can cut them as a network failure would.
func (b *Bridge) track(c net.Conn, state http.ConnState) {
	if state != http.StateHijacked {
		return
	}
	b.mu.Lock()
	b.widgets[c] = true
	b.upgrades++
	b.mu.Unlock()
}

// DropWidgets cuts every WebSocket connection without a close frame, as a
// network failure does. Widgets reconnect on their own.
func (b *Bridge) DropWidgets() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.widgets {
		c.Close()
		delete(b.widgets, c)
	}
}

// Upgrades counts the WebSocket connections made so far.
func (b *Bridge) Upgrades() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.upgrades
}

// Requests lists the HTTP requests the bridge has had, as "GET /path",
// in order.
func (b *Bridge) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requests)
}

// WidgetURL is the link a person opens: the token in the fragment.
func (b *Bridge) WidgetURL() string { return b.URL + "/#token=" + b.Token }

// WSURL is the bridge's WebSocket endpoint, as a link or a static
// site's config.json names it.
func (b *Bridge) WSURL() string { return "ws" + strings.TrimPrefix(b.URL, "http") + "/ws" }

// Outcome is what a caller of hub.Elicit got back.
type Outcome struct {
	Result *wire.ElicitResult
	Err    error
}

// Requester is who asks in the tests.
var Requester = wire.Implementation{Name: "e2e-server", Title: "Travel Desk", Version: "2.1.0"}

// Elicit sends params (JSON text) on channel "default" and returns at
// once; the caller's outcome arrives on the channel when it settles.
func (b *Bridge) Elicit(t testing.TB, params string, opts *hub.ElicitOptions) <-chan Outcome {
	t.Helper()
	return b.ElicitAs(t, Requester, params, opts)
}

// ElicitAs is Elicit with another requester.
func (b *Bridge) ElicitAs(t testing.TB, requester wire.Implementation, params string, opts *hub.ElicitOptions) <-chan Outcome {
	t.Helper()
	if !json.Valid([]byte(params)) {
		t.Fatalf("test params are not JSON: %s", params)
	}
	out := make(chan Outcome, 1)
	go func() {
		res, err := b.Hub.Elicit(context.Background(), hub.DefaultChannel, requester, json.RawMessage(params), opts)
		out <- Outcome{res, err}
	}()
	return out
}

// wasmBuilt reports whether web/app.wasm exists in dir.
func wasmBuilt(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "app.wasm"))
	return err == nil && fi.Size() > 0
}
