package ui

import (
	"strconv"
	"time"
)

// countdownWindow is how close to its expiry a request starts showing a
// countdown. Earlier than that a clock would only add pressure.
const countdownWindow = 5 * time.Minute

// minSkew is the smallest difference between the bridge's clock and the
// device's that the widget corrects for: a few seconds do not change what
// a countdown means, and the network's delay is in the difference too.
const minSkew = 5 * time.Second

// clockSkew is how far the bridge's clock is ahead of the device's:
// bridge is the time in hello's answer (zero from a bridge that does not
// say), local the device's when that answer reached the page (not when
// the widget read it, which can be seconds later while its wasm loads).
// Countdowns and "how long ago" count on the bridge's clock, which set
// expiresAt and createdAt, so a device whose clock was set by hand does
// not show minutes left on a request about to expire.
func clockSkew(bridge, local time.Time) time.Duration {
	d := bridge.Sub(local)
	if bridge.IsZero() || d > -minSkew && d < minSkew {
		return 0
	}
	return d
}

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

// untilAgoChanges is how long after now ago(now, t) reads differently,
// 0 if never (a date).
func untilAgoChanges(now, t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	switch d := now.Sub(t); {
	case d < time.Minute:
		return time.Minute - d
	case d < time.Hour:
		return time.Minute - d%time.Minute
	case d < 24*time.Hour:
		return time.Hour - d%time.Hour
	}
	return 0
}

// untilCountdownChanges is how long after now countdown(now, expires)
// reads differently, 0 if never: when it enters its window, then at each
// whole second left (seconds round up), through expiry.
func untilCountdownChanges(now, expires time.Time) time.Duration {
	if expires.IsZero() {
		return 0
	}
	switch left := expires.Sub(now); {
	case left <= 0:
		return 0
	case left > countdownWindow:
		return left - countdownWindow
	default:
		return (left-1)%time.Second + 1
	}
}

// countdown is the quiet "Closes in 4 min" shown in the last minutes
// before expiry, then "Closes in 45 sec" in the last one, or "" when
// expiry is far away, past, or unknown. Not "4:05", which reads like a
// time of day. Minutes round down (1:59 is "1 min", never a promise of
// two), seconds up (never "0 sec" early).
func countdown(now, expires time.Time) string {
	if expires.IsZero() {
		return ""
	}
	left := expires.Sub(now)
	if left <= 0 || left > countdownWindow {
		return ""
	}
	secs := int((left + time.Second - 1) / time.Second)
	if secs < 60 {
		return "Closes in " + strconv.Itoa(secs) + " sec"
	}
	return "Closes in " + strconv.Itoa(secs/60) + " min"
}

// deadlineWarning is what a screen reader is told when the open request
// has crossed into its last 5 minutes, or its last minute, between two
// ticks (before and now), else "". The countdown on screen changes
// silently, and a person who cannot see it would learn that the request
// closed only when it had. Said at those two marks, not at every change:
// a voice counting down would drown what the person is writing.
func deadlineWarning(before, now, expires time.Time) string {
	if before.IsZero() || expires.IsZero() || !now.Before(expires) {
		return ""
	}
	if left := expires.Sub(now); left <= time.Minute && expires.Sub(before) > time.Minute {
		return "1 minute left to answer this request."
	} else if left <= countdownWindow && expires.Sub(before) > countdownWindow {
		return strconv.Itoa(int(countdownWindow/time.Minute)) + " minutes left to answer this request."
	}
	return ""
}
