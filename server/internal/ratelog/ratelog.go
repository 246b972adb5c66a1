// Package ratelog bounds the log lines that clients can cause by being
// refused: anyone who reaches the bridge can make one per HTTP request,
// and a caller a limit turns away may retry in a loop; neither must fill
// the operator's disk.
package ratelog

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// PerWindow lines of each message are written per Window; the next line
// of a message written after some were left out says how many.
const (
	PerWindow = 20
	Window    = time.Minute
)

// Limiter writes at most PerWindow lines per Window for each message
// (each reason of refusal), so a flood of one kind of refusal cannot hide
// another kind. Messages are meant to be constants; past maxReasons
// distinct ones, the rest share one budget. Its zero value is ready to use.
type Limiter struct {
	mu      sync.Mutex
	now     func() time.Time // time.Now; tests set it
	reasons map[string]*window
}

const maxReasons = 32

type window struct {
	start   time.Time // of the current window
	logged  int       // lines in the current window
	skipped int       // lines left out since the last one written
}

// Log writes msg at level unless this window's lines for msg are spent.
func (r *Limiter) Log(l *slog.Logger, level slog.Level, msg string, args ...any) {
	r.mu.Lock()
	now := time.Now()
	if r.now != nil {
		now = r.now()
	}
	if r.reasons == nil {
		r.reasons = map[string]*window{}
	}
	key := msg
	if _, ok := r.reasons[key]; !ok && len(r.reasons) >= maxReasons {
		key = ""
	}
	w := r.reasons[key]
	if w == nil {
		w = &window{}
		r.reasons[key] = w
	}
	if now.Sub(w.start) >= Window {
		w.start, w.logged = now, 0
	}
	if w.logged >= PerWindow {
		w.skipped++
		r.mu.Unlock()
		return
	}
	w.logged++
	skipped := w.skipped
	w.skipped = 0
	r.mu.Unlock()
	if skipped > 0 {
		args = append(args, "refusals_not_logged_before", skipped)
	}
	l.Log(context.Background(), level, msg, args...)
}

// Clip cuts a client's string to at most max bytes before it goes into
// a log line, marking the cut.
func Clip(s string, max int) string {
	if len(s) > max {
		return strings.ToValidUTF8(s[:max], "") + "…" // the cut may split a character
	}
	return s
}
