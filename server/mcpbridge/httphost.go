package mcpbridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHost serves the host side of a proxy over Streamable HTTP (mount it
// at /mcp). Each host session gets its own upstream connection from dial
// and its own relay. Sessions are stateful, which the 2026-07-28 protocol
// does not allow on HTTP: a host asking server/discover is told the
// method is not there, and falls back to initialize at 2025-11-25.
type HTTPHost struct {
	// MaxSessions bounds concurrent host sessions (each holds an upstream
	// connection); 0 = 64. Set it before serving.
	MaxSessions int

	proxy *Proxy
	cop   *http.CrossOriginProtection
	dial  func(ctx context.Context) (mcp.Connection, error)
	ctx   context.Context // ends every session

	mu       sync.Mutex
	sessions map[string]*httpSession
	wg       sync.WaitGroup
}

type httpSession struct {
	transport *mcp.StreamableServerTransport
	cancel    context.CancelFunc
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
		http.Error(w, "cross-origin requests are refused", http.StatusForbidden)
		return
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(local.String()) && !isLoopback(r.Host) {
		http.Error(w, fmt.Sprintf("refused: Host %q is not this machine", r.Host), http.StatusForbidden)
		return
	}
	id := r.Header.Get(sessionHeader)
	if id != "" {
		h.mu.Lock()
		s := h.sessions[id]
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
		s.transport.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "start a session with a POST of initialize", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		http.Error(w, "failed to read the request body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if msg, err := jsonrpc.DecodeMessage(body); err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == methodDiscover {
			// Stateless discovery is 2026-07-28; this endpoint keeps
			// sessions, so steer the host to initialize.
			w.Header().Set("Content-Type", "application/json")
			out, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "server/discover is not served here; use initialize"}})
			w.Write(out)
			return
		}
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
	s.transport.ServeHTTP(w, r)
}

// open starts a relay for a new host session.
func (h *HTTPHost) open() (*httpSession, error) {
	max := h.MaxSessions
	if max <= 0 {
		max = 64
	}
	h.mu.Lock()
	n := len(h.sessions)
	h.mu.Unlock()
	if n >= max {
		return nil, errTooManySessions
	}
	ctx, cancel := context.WithCancel(h.ctx)
	up, err := h.dial(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	t := &mcp.StreamableServerTransport{SessionID: rand.Text()}
	host, err := t.Connect(ctx)
	if err != nil {
		cancel()
		up.Close()
		return nil, err
	}
	s := &httpSession{transport: t, cancel: cancel}
	h.mu.Lock()
	h.sessions[t.SessionID] = s
	h.mu.Unlock()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		err := h.proxy.Serve(ctx, host, up)
		cancel()
		h.mu.Lock()
		delete(h.sessions, t.SessionID)
		h.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			h.proxy.logger().Warn("HTTP proxy session ended", "err", err)
		} else {
			h.proxy.logger().Debug("HTTP proxy session ended")
		}
	}()
	return s, nil
}

var errTooManySessions = errors.New("too many MCP sessions on this proxy; close one and retry")

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

// Wait blocks until every session's relay has ended (after ctx ended).
func (h *HTTPHost) Wait() { h.wg.Wait() }
