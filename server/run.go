package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/formbridge/formbridge/server/site"
)

// shutdownGrace is how long requests in flight get to finish at shutdown.
const shutdownGrace = 5 * time.Second

// minTokenLength is the length of the tokens the hub makes (128 random
// bits in base32); a --token shorter than that is warned about.
const minTokenLength = 26

// running is a bridge serving HTTP on a listener.
type running struct {
	*bridge
	ln   net.Listener
	srv  *http.Server
	log  *slog.Logger
	done chan error // the result of Serve
}

// listen opens addr first, so the bridge knows its own URL (port 0 picks
// a free port) before it is built.
func listen(addr string) (net.Listener, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, &usageError{fmt.Sprintf("--addr takes a host:port such as 127.0.0.1:8080, not %q", addr)}
	}
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, &addrInUseError{addr: addr, err: err}
	case err != nil:
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	return ln, nil
}

// addrInUseError: something listens on the address already, most often
// another formbridge.
type addrInUseError struct {
	addr string
	err  error
}

func (e *addrInUseError) Error() string {
	return fmt.Sprintf("cannot listen on %s: %v (is another formbridge running? try --addr 127.0.0.1:0 for any free port)", e.addr, e.err)
}

func (e *addrInUseError) Unwrap() error { return e.err }

// baseURL is how people reach a listener: an unspecified host
// (0.0.0.0, ::) becomes 127.0.0.1, which works from this machine.
func baseURL(ln net.Listener) string {
	addr := ln.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(addr.Port))
}

// maxHeaderBytes bounds a request's line and headers (net/http allows
// 4 KiB more).
const maxHeaderBytes = 32 << 10

// newHTTPServer is the bridge's HTTP server. Its ReadTimeout frees a
// connection whose client announces a body and then trickles it, or
// never sends it. It does not cut short an API call that waits for a
// person: net/http clears the read deadline once a body is read to its
// end (and at once for a request without one, like the WebSocket
// upgrade). No WriteTimeout: API callers and the demo panel wait for a
// person's answer, up to the elicitation timeout. MaxHeaderBytes: until
// ReadHeaderTimeout, a client's unfinished headers stay in memory at
// several times the bytes it sent (a map entry per line); net/http's
// 1 MB default let 500 stalled clients hold 3.9 GB. Browsers, hosts and
// reverse proxies send a few KB; 36 KiB in all is more than nginx passes
// on by default (4 x 8 KB), and leaves room for large cookies.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute, // the largest body (an MCP request, 4 MiB) at 70 KB/s
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// start serves b on ln in the background.
func start(b *bridge, ln net.Listener, log *slog.Logger) *running {
	r := &running{
		bridge: b,
		ln:     ln,
		log:    log,
		done:   make(chan error, 1),
		srv:    newHTTPServer(b.Handler(), log),
	}
	go func() { r.done <- r.srv.Serve(ln) }()
	return r
}

// wait blocks until ctx ends (Ctrl-C, SIGTERM) or the server fails, then
// shuts down gracefully: pending elicitations are settled as cancel
// first, so their callers get an answer while their connections are
// still open; then requests in flight get shutdownGrace to finish.
func (r *running) wait(ctx context.Context) error {
	var serveErr error
	select {
	case <-ctx.Done():
		r.log.Info("shutting down")
	case serveErr = <-r.done:
		r.log.Error("the HTTP server stopped", "err", serveErr)
	}
	r.bridge.Close()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := r.srv.Shutdown(sctx); err != nil {
		r.log.Warn("requests still running after the grace period were cut off", "grace", shutdownGrace)
		r.srv.Close()
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("the HTTP server failed: %w", serveErr)
	}
	r.log.Info("stopped")
	return nil
}

// extras let a command add to the bridge it serves (the demo mounts its
// panel and runs its MCP server).
type extras struct {
	siteScripts []string // web folder scripts the page loads besides the widget
	intro       string   // first line above the link; "" = the usual one
	// outro, when set, is printed after the link (it gets the link).
	outro func(widgetURL string) string
	// extend runs after the bridge is built and before it serves; its
	// cleanup runs after shutdown.
	extend func(*bridge) (cleanup func(), err error)
}

// serve runs a bridge until ctx ends.
func serve(ctx context.Context, f *bridgeFlags, stderr io.Writer, x *extras) error {
	if x == nil {
		x = &extras{}
	}
	r, cleanup, err := startBridge(f, stderr, x)
	if err != nil {
		return err
	}
	defer cleanup()
	link := r.WidgetURL(r.Hub.DefaultToken())
	printWidgetURL(stderr, x.intro, link)
	if x.outro != nil {
		fmt.Fprint(stderr, x.outro(link))
	}
	return r.wait(ctx)
}

// startBridge listens, builds and starts a bridge from flags.
func startBridge(f *bridgeFlags, stderr io.Writer, x *extras) (*running, func(), error) {
	if x == nil {
		x = &extras{}
	}
	log, err := newLogger(*f.logFormat, stderr)
	if err != nil {
		return nil, nil, err
	}
	if *f.timeout <= 0 {
		return nil, nil, &usageError{"--timeout must be longer than zero"}
	}
	origins, err := checkOrigins(*f.origins)
	if err != nil {
		return nil, nil, err
	}
	base := ""
	if *f.publicURL != "" {
		if base, err = checkPublicURL(*f.publicURL); err != nil {
			return nil, nil, err
		}
	}
	ln, err := listen(*f.addr)
	if err != nil {
		return nil, nil, err
	}
	if base == "" {
		base = baseURL(ln)
	}
	b, err := newBridge(&bridgeOptions{
		BaseURL:        base,
		Token:          *f.token,
		APIKey:         *f.apiKey,
		AllowedOrigins: origins,
		Timeout:        *f.timeout,
		WebDir:         *f.webDir,
		SiteScripts:    x.siteScripts,
		Logger:         log,
	})
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	cleanup := func() {}
	if x.extend != nil {
		if cleanup, err = x.extend(b); err != nil {
			b.Close()
			ln.Close()
			return nil, nil, err
		}
	}
	log.Info("formbridge is listening", "addr", ln.Addr().String(), "version", version)
	if n := len(*f.token); n > 0 && n < minTokenLength {
		// Hello attempts are not counted, so a short token is one anyone
		// who reaches the bridge can guess.
		log.Warn("the --token is short: anyone who can reach this bridge may guess it; use at least 26 random characters, or none for a random one", "length", n)
	}
	if n := len(*f.apiKey); n > 0 && n < minTokenLength {
		// Failed API calls are not counted either, and the key opens
		// every channel.
		log.Warn("the --api-key is short: anyone who can reach this bridge may guess it and ask or read every channel's questions; use at least 26 random characters, e.g. $(openssl rand -hex 16)", "length", n)
	}
	if !site.HasWidget(*f.webDir) {
		log.Warn("this build has no widget (web/app.wasm): its pages cannot start; run make wasm, then build formbridge again, or name a built web folder with --web-dir")
	}
	if !b.APIOn() {
		log.Info("the HTTP API (/api/v1/) is off: start with --api-key or FORMBRIDGE_API_KEY to turn it on")
	}
	return start(b, ln, log), cleanup, nil
}
