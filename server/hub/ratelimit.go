package hub

import "time"

// bucket is a token bucket holding up to perMinute tokens, refilled evenly
// over a minute, so a burst of a minute's worth passes and then requests
// are spread out. The zero value is full.
type bucket struct {
	tokens float64
	last   time.Time
}

// take spends a token at now, or reports how long until one is free.
func (b *bucket) take(now time.Time, perMinute int) (wait time.Duration, ok bool) {
	capacity := float64(perMinute)
	if b.last.IsZero() {
		b.tokens = capacity
	} else if d := now.Sub(b.last); d > 0 {
		b.tokens = min(capacity, b.tokens+d.Minutes()*capacity)
	}
	b.last = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / capacity * float64(time.Minute)), false
	}
	b.tokens--
	return 0, true
}
