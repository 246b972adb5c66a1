package gateway

import (
	"net/http"
	"time"

	"github.com/formbridge/formbridge/server/hub"
)

// NewWithTimers is New with a shorter hello timeout and heartbeat
// interval, so tests need not wait the real ones out.
func NewWithTimers(h *hub.Hub, opts *Options, hello, heartbeat time.Duration) http.Handler {
	g := New(h, opts).(*gateway)
	g.helloTimeout, g.heartbeat = hello, heartbeat
	return g
}

// SetMaxUnauthenticated lowers MaxUnauthenticated for a handler from
// NewWithTimers, before it serves.
func SetMaxUnauthenticated(h http.Handler, n int) { h.(*gateway).lobby.max = n }

// Unauthenticated is how many connections wait for their hello.
func Unauthenticated(h http.Handler) int {
	l := &h.(*gateway).lobby
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting.Len()
}
