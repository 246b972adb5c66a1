package ratelog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	r := &Limiter{now: func() time.Time { return at }}
	for range 3 * PerWindow {
		r.Log(l, slog.LevelInfo, "refused")
	}
	if n := strings.Count(buf.String(), "\n"); n != PerWindow {
		t.Fatalf("%d lines in one window, want %d", n, PerWindow)
	}
	if strings.Contains(buf.String(), "refusals_not_logged_before") {
		t.Errorf("a line in the first window counts lines left out: %s", buf.String())
	}
	buf.Reset()
	at = at.Add(Window)
	r.Log(l, slog.LevelWarn, "refused", "remote", "127.0.0.1:1")
	if got := buf.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "remote=127.0.0.1:1") ||
		!strings.Contains(got, "refusals_not_logged_before=40") {
		t.Errorf("the next window's first line = %q; want it at its level, with its args and the 40 left out", got)
	}
}

// A flood of one reason leaves another's lines alone.
func TestLimiterPerReason(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	r := &Limiter{}
	for range 3 * PerWindow {
		r.Log(l, slog.LevelInfo, "flood")
	}
	r.Log(l, slog.LevelInfo, "other")
	if !strings.Contains(buf.String(), "msg=other") {
		t.Errorf("another reason's line was left out")
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 8, "short"},
		{"exactly8", 8, "exactly8"},
		{"a longer line", 8, "a longer…"},
		{"abcdefgé", 8, "abcdefg…"}, // the cut splits é: its half is dropped
	} {
		if got := Clip(c.in, c.max); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
