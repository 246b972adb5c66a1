package elicit

import (
	"errors"
	"fmt"
	"time"
)

// A datetime-local control gives a wall-clock time without an offset
// ("2026-12-02T10:30", seconds optional); MCP's date-time needs RFC 3339
// with one. The person's offset at that wall-clock time completes it.

var errBadDateTime = errors.New("not an RFC 3339 date and time")

// localLayouts are the forms of an HTML datetime-local value
// ("valid normalized local date and time string" and its variants).
var localLayouts = [...]string{
	"2006-01-02T15:04",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
}

// maxOffset bounds a UTC offset: RFC 3339 writes it as ±hh:mm, hh < 24.
const maxOffset = 24*time.Hour - time.Minute

// LocalDateTime turns an HTML datetime-local value and a UTC offset into
// an RFC 3339 date-time, e.g. ("2026-12-02T10:30", 1h) →
// "2026-12-02T10:30:00+01:00". A zero offset is written "Z". Seconds
// finer than a minute in offset are dropped, as RFC 3339 cannot carry them.
func LocalDateTime(value string, offset time.Duration) (string, error) {
	local, err := parseLocal(value)
	if err != nil {
		return "", err
	}
	return withOffset(local, offset)
}

// parseLocal reads a datetime-local value as a wall-clock time in UTC.
func parseLocal(value string) (time.Time, error) {
	if len(value) >= len("2006-01-02T15:04") && len(value) <= 32 && (value[10] == 'T' || value[10] == ' ') {
		v := value
		if v[10] == ' ' {
			v = v[:10] + "T" + v[11:]
		}
		for _, layout := range localLayouts {
			if t, err := time.Parse(layout, v); err == nil {
				return t, nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("failed to read %q as a local date and time", value)
}

// withOffset writes the wall-clock time local (in UTC) at offset.
func withOffset(local time.Time, offset time.Duration) (string, error) {
	offset = offset.Truncate(time.Minute)
	if offset > maxOffset || offset < -maxOffset {
		return "", fmt.Errorf("failed to apply UTC offset %v: it must be less than 24 hours", offset)
	}
	zone := time.FixedZone("", int(offset/time.Second))
	t := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(), local.Nanosecond(), zone)
	return t.Format(time.RFC3339Nano), nil
}

// DateTimeLocalValue is the inverse of LocalDateTime: it writes an RFC
// 3339 date-time (a date-time default, say) as the value of an HTML
// datetime-local control for a person at offset, e.g.
// ("2026-12-02T09:30:00Z", 1h) → "2026-12-02T10:30". A datetime-local
// control refuses a value with an offset and shows nothing, which would
// silently drop the default. Seconds are written only when not zero.
func DateTimeLocalValue(rfc3339 string, offset time.Duration) (string, error) {
	t, err := ParseDateTime(rfc3339)
	if err != nil {
		return "", fmt.Errorf("failed to read %q as a date and time: %w", rfc3339, err)
	}
	offset = offset.Truncate(time.Minute)
	if offset > maxOffset || offset < -maxOffset {
		return "", fmt.Errorf("failed to apply UTC offset %v: it must be less than 24 hours", offset)
	}
	local := t.In(time.FixedZone("", int(offset/time.Second)))
	layout := localLayouts[0]
	if local.Second() != 0 || local.Nanosecond() != 0 {
		layout = localLayouts[2]
	}
	return local.Format(layout), nil
}
