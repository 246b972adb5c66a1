package ui

import (
	"strconv"
	"time"
)

// countdownWindow is how close to its expiry a request starts showing a
// countdown. Earlier than that a clock would only add pressure.
const countdownWindow = 5 * time.Minute

// ago says how long ago t was, the way a person says it.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < 2*time.Minute:
		return "1 minute ago"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " minutes ago"
	case d < 2*time.Hour:
		return "1 hour ago"
	case d < 24*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " hours ago"
	}
	return "on " + t.Local().Format("2 January")
}

// countdown is the quiet "Closes in 4:05" shown in the last minutes
// before expiry, or "" when expiry is far away, past, or unknown.
func countdown(now, expires time.Time) string {
	if expires.IsZero() {
		return ""
	}
	left := expires.Sub(now)
	if left <= 0 || left > countdownWindow {
		return ""
	}
	secs := int((left + time.Second - 1) / time.Second) // round up: never show 0:00 early
	m, s := secs/60, secs%60
	if m == 0 {
		return "Closes in " + strconv.Itoa(s) + " s"
	}
	ss := strconv.Itoa(s)
	if s < 10 {
		ss = "0" + ss
	}
	return "Closes in " + strconv.Itoa(m) + ":" + ss
}
