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
func SetMaxUnauthenticated(h http.Handler, n int64) { h.(*gateway).maxUnauthenticated = n }
