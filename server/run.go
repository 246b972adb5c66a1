package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long requests in flight get to finish at shutdown.
const shutdownGrace = 5 * time.Second

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
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w (is another formbridge running? try --addr 127.0.0.1:0 for any free port)", addr, err)
	}
	return ln, nil
}

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

// start serves b on ln in the background.
func start(b *bridge, ln net.Listener, log *slog.Logger) *running {
	r := &running{
		bridge: b,
		ln:     ln,
		log:    log,
		done:   make(chan error, 1),
		srv: &http.Server{
			Handler:           b.Handler(),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			// No WriteTimeout: API callers and the demo panel wait for a
			// person's answer, up to the elicitation timeout.
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
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

// newLogger logs to w in the format a flag asked for.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, &usageError{fmt.Sprintf("--log-format must be text or json, not %q", format)}
}

// printWidgetURL shows the link to open, set apart from the log lines so
// a person notices it. It is printed, never logged: it carries the token.
func printWidgetURL(w io.Writer, intro, link string) {
	if intro == "" {
		intro = "formbridge is ready. Open this link in your browser:"
	}
	fmt.Fprintf(w, "\n  %s\n\n      %s\n\n"+
		"  Anyone with this link can answer the questions on it: share it only with the person who should.\n"+
		"  Press Ctrl-C to stop.\n\n", intro, link)
}

// atLeast drops records below min: the go-sdk logs every session event at
// Info, which buries the lines a person running the demo needs.
func atLeast(l *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(minLevel{l.Handler(), min})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
