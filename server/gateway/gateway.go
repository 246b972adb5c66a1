// Package gateway is the widgets' WebSocket endpoint (wire.Path): it
// checks the origin before the upgrade, authenticates the hello, attaches
// the widget to its channel on the hub, and shuttles frames both ways.
//
// Each connection costs one goroutine (it reads) and small buffers; a
// writer goroutine exists only while frames are waiting, and the
// heartbeat is a timer, not a goroutine. BenchmarkIdleConnection
// measures an idle widget at about 12 KiB.
package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/forwarding"
	"github.com/formbridge/formbridge/server/internal/ratelog"
)

// Limits of one connection.
const (
	// HelloTimeout is how long a widget has to authenticate.
	HelloTimeout = 10 * time.Second
	// ReadLimit bounds the hello, the first frame; beyond it the
	// connection closes with 1009 (message too big). After the hello,
	// frames may be up to wire.MaxAnswerBytes: an answer carries what
	// the person wrote.
	ReadLimit = 64 << 10
	// MaxBadFrames is how many malformed or refused frames a connection
	// may send before it is closed with 1008.
	MaxBadFrames = 16
	// WriteTimeout bounds writing one frame; a peer that does not read
	// for this long is dropped.
	WriteTimeout = 10 * time.Second
	// MaxUnauthenticated bounds the connections that have not said hello
	// yet. Each holds a goroutine for up to HelloTimeout; beyond this
	// many, a new one drops the one that has waited longest (see lobby).
	MaxUnauthenticated = 1024
	// PongTimeout is how long a ping may wait for its pong. With pings at
	// wire.HeartbeatInterval a dead peer is found within ~30 s.
	PongTimeout = 20 * time.Second
)

// Options configure the gateway. The zero value allows same-origin pages only.
type Options struct {
	// AllowedOrigins are the origins besides the bridge's own whose pages
	// may open the WebSocket: host patterns as path.Match reads them
	// ("chat.example.com", "*.example.com"), or with a scheme
	// ("https://chat.example.com").
	AllowedOrigins []string
	Logger         *slog.Logger
}

type gateway struct {
	h      hub.Engine // *hub.Hub today; see hub.Engine
	log    *slog.Logger
	accept websocket.AcceptOptions

	// HelloTimeout and wire.HeartbeatInterval; tests shorten them.
	helloTimeout, heartbeat time.Duration

	lobby lobby // connections before hello

	refusals ratelog.Limiter // bounds the log lines of clients without a token
}

// New returns the handler to serve at wire.Path.
func New(h *hub.Hub, opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &gateway{
		h:            h,
		log:          log,
		helloTimeout: HelloTimeout,
		heartbeat:    wire.HeartbeatInterval,
		lobby:        lobby{max: MaxUnauthenticated},
		accept: websocket.AcceptOptions{
			Subprotocols:   []string{wire.Subprotocol},
			OriginPatterns: slices.Clone(o.AllowedOrigins),
			// Frames are small JSON; compression would cost a flate
			// state per connection for little gain.
			CompressionMode: websocket.CompressionDisabled,
		},
	}
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The token belongs in hello. One found in the URL has leaked into
	// history and logs already: refuse it so the mistake is noticed.
	if r.URL.Query().Has("token") {
		http.Error(w, "send the token in formbridge/hello, never in the URL", http.StatusBadRequest)
		return
	}
	if !offers(r, wire.Subprotocol) {
		http.Error(w, "this endpoint speaks the WebSocket subprotocol "+wire.Subprotocol, http.StatusBadRequest)
		return
	}
	// Accept refuses a foreign Origin with 403 before the upgrade, so no
	// data flows to a page that is not allowed (cross-site WebSocket hijacking).
	lw := &leanWriter{ResponseWriter: w}
	ws, err := websocket.Accept(lw, r, &g.accept)
	if err != nil {
		// Both clipped: a refused origin is the client's text, of any
		// length, and the error repeats it.
		msg := "WebSocket refused"
		if strings.Contains(err.Error(), "not authorized") {
			msg = "WebSocket refused: a page of an origin this bridge does not allow (formbridge --allowed-origins, gateway.Options.AllowedOrigins)"
		}
		g.refusals.Log(g.log, slog.LevelInfo, msg, "remote", forwarding.Remote(r), "origin", short(r.Header.Get("Origin")), "err", ratelog.Clip(err.Error(), 256))
		return
	}
	// The connection gets its own goroutine and the handler returns, so
	// net/http lets go of the request and its buffers. The request's
	// context ends with the handler: the connection does not use it.
	c := &conn{g: g, ws: ws, cork: lw.cork, remote: forwarding.Remote(r)}
	if old := g.lobby.enter(c); old != nil {
		g.refusals.Log(g.log, slog.LevelInfo, "widget dropped: too many connections waiting for hello", "remote", old.remote)
		// Its hello's read fails and ends it. Not here: CloseNow waits
		// for a close already under way, and this widget must not.
		go old.ws.CloseNow()
	}
	go c.serve(context.Background())
}

// offers reports whether the client listed proto in Sec-WebSocket-Protocol.
func offers(r *http.Request, proto string) bool {
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			if strings.TrimSpace(p) == proto {
				return true
			}
		}
	}
	return false
}
