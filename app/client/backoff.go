package client

import (
	"math/rand/v2"
	"time"
)

// Reconnect delays: doubling from minBackoff to maxBackoff. Each delay is
// jittered by up to ±jitter so that widgets dropped together by a bridge
// restart do not all come back in the same instant.
const (
	minBackoff = 1 * time.Second
	maxBackoff = 30 * time.Second
	jitter     = 0.2
)

// backoff returns the delay before reconnect attempt n (0 after the first
// failure), always within [minBackoff, maxBackoff].
func backoff(n int) time.Duration {
	d := maxBackoff
	if n < 5 { // 1s<<5 = 32s is already past the cap
		d = min(minBackoff<<n, maxBackoff)
	}
	f := 1 + jitter*(2*rand.Float64()-1)
	d = time.Duration(float64(d) * f)
	return min(max(d, minBackoff), maxBackoff)
}
