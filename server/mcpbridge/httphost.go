package mcpbridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/server/internal/forwarding"
	"github.com/formbridge/formbridge/server/internal/ratelog"
)

// HTTPHost serves the host side of a proxy over Streamable HTTP (mount it
// at /mcp). Each host session gets its own upstream connection from dial
// and its own relay. Sessions are stateful, which the 2026-07-28 protocol
// does not allow on HTTP: a host asking server/discover is told the
// method is not there, and falls back to initialize at 2025-11-25.
type HTTPHost struct {
	// MaxSessions bounds concurrent host sessions (each holds an upstream
	// connection); 0 = 64. When they are all taken, a new session ends
	// the one idle longest; only when every one has a request open is it
	// refused (503). Set it before serving.
	MaxSessions int
	// APIKey, when set, must come with every request as
	// "Authorization: Bearer <key>". Without one, only connections made
	// to a loopback address are served: /mcp reaches the upstream's tools
	// with the proxy's own standing, which the network must not get for
	// free when the bridge listens on another interface.
	APIKey string
	// IdleTimeout ends a session that has had no request open for this
	// long (a host that went away without DELETE); 0 = 30 minutes. A
	// session waiting on a person keeps its request open, so it is never
	// idle. Set it before serving.
	IdleTimeout time.Duration

	proxy    *Proxy
	cop      *http.CrossOriginProtection
	refusals ratelog.Limiter // bounds the log lines of refused requests
	dial     func(ctx context.Context) (mcp.Connection, error)
	ctx      context.Context // ends every session

	mu       sync.Mutex
	sessions map[string]*httpSession
	wg       sync.WaitGroup
	reaping  sync.Once
}

type httpSession struct {
	transport *mcp.StreamableServerTransport
	cancel    context.CancelFunc

	// Guarded by HTTPHost.mu: requests open now, and when the last ended.
	open     int
	lastSeen time.Time
}

// serve hands r to the session's transport, keeping its idle clock. The
// caller has counted r in s.open, under h.mu with the lookup or the
// opening that found s, so evictIdlest cannot end s in between.
func (h *HTTPHost) serve(s *httpSession, w http.ResponseWriter, r *http.Request) {
	defer func() {
		h.mu.Lock()
		s.open--
		s.lastSeen = time.Now()
		h.mu.Unlock()
	}()
	s.transport.ServeHTTP(w, r)
}

// reap ends the sessions idle since before now-IdleTimeout.
func (h *HTTPHost) reap(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.sessions {
		if s != nil && s.open == 0 && now.Sub(s.lastSeen) > h.idleTimeout() {
			s.cancel() // its relay ends and removes it
		}
	}
}

func (h *HTTPHost) idleTimeout() time.Duration {
	if h.IdleTimeout > 0 {
		return h.IdleTimeout
	}
	return 30 * time.Minute
}

// startReaper looks for idle sessions a few times per IdleTimeout until
// the host's context ends.
func (h *HTTPHost) startReaper() {
	h.reaping.Do(func() {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			tick := time.NewTicker(max(h.idleTimeout()/4, time.Second))
			defer tick.Stop()
			for {
				select {
				case <-h.ctx.Done():
					return
				case now := <-tick.C:
					h.reap(now)
				}
			}
		}()
	})
}

// NewHTTPHost returns a handler whose sessions end with ctx.
func NewHTTPHost(ctx context.Context, p *Proxy, dial func(ctx context.Context) (mcp.Connection, error)) *HTTPHost {
	return &HTTPHost{proxy: p, dial: dial, ctx: ctx, sessions: map[string]*httpSession{}, cop: http.NewCrossOriginProtection()}
}

// sessionHeader is the Streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

func (h *HTTPHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// MCP hosts are programs, not web pages: refuse what a browser sends
	// cross-origin, and (on loopback) a Host that is not loopback, which is
	// what a DNS-rebinding page would send.
	if err := h.cop.Check(r); err != nil {
		h.refuse(w, r, http.StatusForbidden, "MCP host refused: a cross-origin request", "cross-origin requests are refused")
		return
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	// A request a reverse proxy passed on comes from loopback too, but
	// from whoever reached the proxy: it is not this machine's.
	onLoopback := local != nil && isLoopback(local.String()) && !forwarding.Present(r)
	// With an API key a rebinding page cannot get in (it does not know
	// the key), and a reverse proxy on this machine passes the public Host.
	if onLoopback && h.APIKey == "" && !isLoopback(r.Host) {
		h.refuse(w, r, http.StatusForbidden, "MCP host refused: Host is not this machine", fmt.Sprintf("refused: Host %q is not this machine", r.Host))
		return
	}
	switch {
	case h.APIKey != "":
		if !bearerMatches(r, h.APIKey) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="formbridge"`)
			h.refuse(w, r, http.StatusUnauthorized, "MCP host refused: wrong or missing API key", "send the proxy's API key as Authorization: Bearer <key>")
			return
		}
	case !onLoopback:
		h.refuse(w, r, http.StatusForbidden, "MCP host refused: another machine, and no --api-key", "this proxy serves MCP hosts on other machines only with an API key (--api-key)")
		return
	}
	// The go-sdk bounds bodies in its handler, not in the transport this
	// serves with, so the bound is set here for every request.
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes)
	}
	id := r.Header.Get(sessionHeader)
	if id != "" {
		h.mu.Lock()
		s := h.sessions[id]
		if s != nil && r.Method != http.MethodDelete {
			s.open++ // see serve
		}
		h.mu.Unlock()
		if s == nil {
			http.Error(w, "unknown or ended MCP session; initialize a new one", http.StatusNotFound)
			return
		}
		if r.Method == http.MethodDelete {
			s.cancel()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.serve(s, w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "start a session with a POST of initialize", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "the request body is too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read the request body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg, _ := jsonrpc.DecodeMessage(body)
	req, _ := msg.(*jsonrpc.Request)
	switch {
	case req != nil && req.Method == methodDiscover:
		// Stateless discovery is 2026-07-28; this endpoint keeps
		// sessions, so steer the host to initialize.
		w.Header().Set("Content-Type", "application/json")
		out, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "server/discover is not served here; use initialize"}})
		w.Write(out)
		return
	case req == nil || req.Method != methodInitialize || !req.IsCall():
		// Only initialize starts a session: anything else would hold one
		// of MaxSessions, and an upstream, until the idle reaper.
		http.Error(w, "no MCP session: start one with a POST of initialize", http.StatusBadRequest)
		return
	}
	s, err := h.open()
	if errors.Is(err, errTooManySessions) {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if err != nil {
		h.proxy.logger().Error("could not reach the upstream MCP server for a new HTTP session", "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		json.NewEncoder(w).Encode(map[string]string{"error": "formbridge could not reach the upstream MCP server"})
		return
	}
	h.serve(s, w, r)
}

// open starts a relay for a new host session, with the caller's initialize
// counted as open (see serve).
func (h *HTTPHost) open() (*httpSession, error) {
	max := h.MaxSessions
	if max <= 0 {
		max = 64
	}
	// The slot is taken before dialing (a nil entry, which requests treat
	// as unknown), so concurrent initializes cannot all pass the count.
	id := rand.Text()
	h.mu.Lock()
	if len(h.sessions) >= max && !h.evictIdlest() {
		h.mu.Unlock()
		return nil, errTooManySessions
	}
	h.sessions[id] = nil
	h.mu.Unlock()
	release := func() {
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
	}
	ctx, cancel := context.WithCancel(h.ctx)
	up, err := h.dial(ctx)
	if err != nil {
		cancel()
		release()
		return nil, err
	}
	t := &mcp.StreamableServerTransport{SessionID: id}
	host, err := t.Connect(ctx)
	if err != nil {
		cancel()
		up.Close()
		release()
		return nil, err
	}
	// Its initialize is open already (see serve).
	s := &httpSession{transport: t, cancel: cancel, lastSeen: time.Now(), open: 1}
	h.mu.Lock()
	h.sessions[id] = s
	h.mu.Unlock()
	h.startReaper()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		err := h.proxy.Serve(ctx, host, up)
		cancel()
		release()
		if err != nil && ctx.Err() == nil {
			h.proxy.logger().Warn("HTTP proxy session ended", "err", err)
		} else {
			h.proxy.logger().Debug("HTTP proxy session ended")
		}
	}()
	return s, nil
}

// evictIdlest ends the session idle longest, to make room for a new
// one: hosts that went away without DELETE would otherwise fill
// MaxSessions and keep every later host out until the reaper. A session
// with a request open (a call waiting on a person, a GET stream) is never
// ended. It reports whether one was. The caller holds h.mu.
func (h *HTTPHost) evictIdlest() bool {
	var idlest string
	for id, s := range h.sessions {
		if s != nil && s.open == 0 && (idlest == "" || s.lastSeen.Before(h.sessions[idlest].lastSeen)) {
			idlest = id
		}
	}
	if idlest == "" {
		return false
	}
	h.sessions[idlest].cancel() // its relay ends; release finds it gone
	delete(h.sessions, idlest)
	return true
}

var errTooManySessions = errors.New("too many MCP sessions on this proxy; close one and retry")

// bearerMatches reports whether r carries key as its bearer token. Both
// are hashed first, so the comparison takes the same time whatever the
// lengths.
func bearerMatches(r *http.Request, key string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(key))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// isLoopback reports whether a host or host:port names this machine.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// refuse answers status with text, and logs why (reason, a constant) at
// most ratelog.PerWindow times a minute: anyone who reaches /mcp can
// cause one; never the key sent.
func (h *HTTPHost) refuse(w http.ResponseWriter, r *http.Request, status int, reason, text string) {
	h.refusals.Log(h.proxy.logger(), slog.LevelWarn, reason, "status", status, "remote", forwarding.Remote(r))
	http.Error(w, text, status)
}

// Wait blocks until every session's relay has ended (after ctx ended).
func (h *HTTPHost) Wait() { h.wg.Wait() }
