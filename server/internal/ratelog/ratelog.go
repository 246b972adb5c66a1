// Package ratelog bounds the log lines that clients who have not
// authenticated can cause: anyone who reaches the bridge can make one
// per HTTP request, and must not fill the operator's disk with them.
package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// PerWindow lines are written per Window; the next line written after
// some were left out says how many.
const (
	PerWindow = 20
	Window    = time.Minute
)

// Limiter writes at most PerWindow lines per Window. Its zero value is
// ready to use.
type Limiter struct {
	mu      sync.Mutex
	now     func() time.Time // time.Now; tests set it
	start   time.Time        // of the current window
	logged  int              // lines in the current window
	skipped int              // lines left out since the last one written
}

// Log writes msg at level unless this window's lines are spent.
func (r *Limiter) Log(l *slog.Logger, level slog.Level, msg string, args ...any) {
	r.mu.Lock()
	now := time.Now()
	if r.now != nil {
		now = r.now()
	}
	if now.Sub(r.start) >= Window {
		r.start, r.logged = now, 0
	}
	if r.logged >= PerWindow {
		r.skipped++
		r.mu.Unlock()
		return
	}
	r.logged++
	skipped := r.skipped
	r.skipped = 0
	r.mu.Unlock()
	if skipped > 0 {
		args = append(args, "refusals_not_logged_before", skipped)
	}
	l.Log(context.Background(), level, msg, args...)
}
