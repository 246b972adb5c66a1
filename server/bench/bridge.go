package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/site"
)

// bridge is the formbridge server as the command assembles it (hub,
// gateway, HTTP API and, when a web folder is given, the widget site),
// on a free loopback port.
type bridge struct {
	URL    string // http://127.0.0.1:port
	WS     string // ws://127.0.0.1:port/ws
	APIKey string
	Hub    *hub.Hub
	srv    *http.Server
}

// benchAPIKey is the HTTP API's key inside the benchmark; the bridge only
// listens on loopback for as long as one part runs.
const benchAPIKey = "bench-key"

func startBridge(opts hub.Options, webDir string) (*bridge, error) {
	return startBridgeFor(opts, webDir, nil)
}

// startBridgeFor is startBridge for a widget whose pages may also come
// from the allowed origins (a static site's).
func startBridgeFor(opts hub.Options, webDir string, allowed []string) (*bridge, error) {
	if opts.ServerInfo.Name == "" {
		opts.ServerInfo = wire.Implementation{Name: "formbridge", Version: "bench"}
	}
	h := hub.New(&opts)
	mux := http.NewServeMux()
	mux.Handle(wire.Path, gateway.New(h, &gateway.Options{AllowedOrigins: allowed}))
	mux.Handle("/api/v1/", api.New(h, &api.Options{APIKey: benchAPIKey}))
	if webDir != "" {
		s, err := site.New(&site.Options{WebDir: webDir, Version: "bench"})
		if err != nil {
			h.Close()
			return nil, err
		}
		mux.Handle("/", s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.Close()
		return nil, err
	}
	b := &bridge{Hub: h, APIKey: benchAPIKey, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	b.URL = "http://" + ln.Addr().String()
	b.WS = "ws://" + ln.Addr().String() + wire.Path
	go b.srv.Serve(ln)
	return b, nil
}

// close settles every pending caller, then drops every connection.
func (b *bridge) close() {
	b.Hub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if b.srv.Shutdown(ctx) != nil {
		b.srv.Close()
	}
}
