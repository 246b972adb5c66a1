package main

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/site"
)

// bridgeOptions are what serve, demo and proxy have in common.
type bridgeOptions struct {
	BaseURL        string        // where people reach the bridge, e.g. http://127.0.0.1:8080
	Token          string        // channel "default"; generated when ""
	APIKey         string        // "" turns the HTTP API off
	AllowedOrigins []string      // pages that may embed the widget and open its WebSocket
	Timeout        time.Duration // per elicitation; 0 = the hub's default
	WebDir         string        // the widget's files; "" = the site's default
	SiteScripts    []string      // web folder scripts the page loads besides the widget
	Logger         *slog.Logger
}

// bridge is the assembled server: the hub, and the HTTP routes in front
// of it. serve, demo, proxy and tests build theirs with newBridge.
type bridge struct {
	Hub     *hub.Hub
	mux     *http.ServeMux
	baseURL string
	apiOn   bool
	log     *slog.Logger
}

// newBridge builds the hub and mounts, on one mux:
//
//	/ws       the widgets' WebSocket (gateway)
//	/api/v1/  the HTTP API for hosts (503 api_off without an API key)
//	/healthz  200 while the process is up
//	/         the widget page and its files (site)
func newBridge(opts *bridgeOptions) (*bridge, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.BaseURL == "" {
		return nil, errors.New("the bridge needs its base URL")
	}
	b := &bridge{baseURL: strings.TrimRight(opts.BaseURL, "/"), mux: http.NewServeMux(), apiOn: opts.APIKey != "", log: log}
	b.Hub = hub.New(&hub.Options{
		DefaultToken: opts.Token,
		Timeout:      opts.Timeout,
		ServerInfo:   wire.Implementation{Name: "formbridge", Title: "formbridge", Version: version},
		Logger:       log.With("part", "hub"),
	})
	siteHandler, err := site.New(&site.Options{
		WebDir:         opts.WebDir,
		Version:        version,
		AllowedOrigins: opts.AllowedOrigins,
		Scripts:        opts.SiteScripts,
	})
	if err != nil {
		b.Hub.Close()
		return nil, err
	}
	b.mux.Handle(wire.Path, gateway.New(b.Hub, &gateway.Options{
		AllowedOrigins: opts.AllowedOrigins,
		Logger:         log.With("part", "gateway"),
	}))
	// Without a key the API answers every route with 503 api_off, as
	// docs/PROTOCOL.md says, so a host that forgot the key learns why.
	b.mux.Handle("/api/v1/", api.New(b.Hub, &api.Options{
		APIKey:    opts.APIKey,
		WidgetURL: func(_, token string) string { return b.WidgetURL(token) },
		Logger:    log.With("part", "api"),
	}))
	b.mux.HandleFunc("/healthz", healthz)
	b.mux.Handle("/", siteHandler)
	return b, nil
}

// Handler serves every route of the bridge.
func (b *bridge) Handler() http.Handler { return b.mux }

// Handle adds a route, e.g. the demo's /demo/.
func (b *bridge) Handle(pattern string, h http.Handler) { b.mux.Handle(pattern, h) }

// WidgetURL is the link that opens the widget on the channel whose token
// this is. The token is in the fragment: browsers never send a fragment
// to a server, so it stays out of access logs and Referer headers.
func (b *bridge) WidgetURL(token string) string {
	return b.baseURL + "/#token=" + url.QueryEscape(token)
}

// APIOn reports whether the HTTP API is served.
func (b *bridge) APIOn() bool { return b.apiOn }

// Close settles every pending elicitation as cancel and drops the widgets.
func (b *bridge) Close() { b.Hub.Close() }

func healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok", "version": version})
}
