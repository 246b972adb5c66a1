// Package api is the HTTP API for hosts that are MCP clients themselves,
// in any language: they post an elicitation and block until a person
// settles it, and they make a channel per approver, team or chat.
// Section 4 of the architecture defines it; docs/PROTOCOL.md shows it
// with curl.
package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/forwarding"
	"github.com/formbridge/formbridge/server/internal/ratelog"
)

// Options configure the API.
type Options struct {
	// APIKey is the bearer key callers present. "" turns the API off:
	// every route answers 503 saying so.
	APIKey string
	// WidgetURL gives the link a person opens for a channel. nil builds
	// it from the request's host: http(s)://host/#token=...
	WidgetURL func(channel, token string) string
	Logger    *slog.Logger
}

type api struct {
	h         hub.Engine // *hub.Hub today; see hub.Engine
	keyHash   [sha256.Size]byte
	widgetURL func(r *http.Request, channel, token string) string
	log       *slog.Logger
	keyed     *keyedQuestions
	// deleting is held while a channel is deleted and its keys forgotten,
	// and shared while a keyed question is claimed and asked, so that no
	// retry comes between the two and is answered from a deleted
	// channel's keys.
	deleting sync.RWMutex

	refusals ratelog.Limiter // bounds the log lines of refused keys
}

// New returns the handler to serve at "/api/v1/".
func New(h *hub.Hub, opts *Options) http.Handler { return newHandler(h, opts) }

// newHandler is New for any Engine: tests wrap the hub in one.
func newHandler(h hub.Engine, opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.APIKey == "" {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusServiceUnavailable, codeAPIOff,
				"the HTTP API is off: start the bridge with --api-key (or FORMBRIDGE_API_KEY) to turn it on", nil)
		})
	}
	a := &api{h: h, keyHash: sha256.Sum256([]byte(o.APIKey)), log: log, keyed: newKeyedQuestions()}
	a.widgetURL = func(r *http.Request, channel, token string) string {
		if o.WidgetURL != nil {
			return o.WidgetURL(channel, token)
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return scheme + "://" + r.Host + "/#token=" + url.QueryEscape(token)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/channels/{channel}/elicitations", a.elicit)
	mux.HandleFunc("POST /api/v1/channels/{channel}/elicitations/complete", a.complete)
	mux.HandleFunc("DELETE /api/v1/channels/{channel}/elicitations", a.withdraw)
	mux.HandleFunc("POST /api/v1/channels", a.createChannel)
	mux.HandleFunc("GET /api/v1/channels/{channel}", a.channelStatus)
	mux.HandleFunc("DELETE /api/v1/channels/{channel}", a.deleteChannel)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// A route that exists for other methods is a 405 saying which,
		// not a 404 that reads as if the path were wrong.
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "/" {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, codeMethodNotAllowed, r.URL.Path+" takes "+strings.Join(allowed, " or ")+", not "+r.Method, nil)
			return
		}
		writeError(w, http.StatusNotFound, codeNotFound, "no such API route: "+r.Method+" "+r.URL.Path, nil)
	})
	return a.authenticated(mux)
}

// authenticated refuses requests without the API key. Both sides are
// hashed first, so the constant-time comparison also hides the key's length.
func (a *api) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The scheme is case-insensitive (RFC 9110, section 11.1).
		scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		ok = ok && strings.EqualFold(scheme, "Bearer")
		got := sha256.Sum256([]byte(strings.TrimSpace(key)))
		if !ok || subtle.ConstantTimeCompare(got[:], a.keyHash[:]) != 1 {
			why := "no Authorization: Bearer header"
			if ok {
				why = "wrong API key"
			}
			// Never the key sent: it may be the right one mistyped.
			a.refusals.Log(a.log, slog.LevelWarn, "API call refused: "+why, "status", http.StatusUnauthorized,
				"remote", forwarding.Remote(r), "method", r.Method, "path", ratelog.Clip(r.URL.Path, 128))
			w.Header().Set("WWW-Authenticate", `Bearer realm="formbridge"`)
			writeError(w, http.StatusUnauthorized, codeUnauthorized, "a valid API key is needed: Authorization: Bearer <key>", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}
