package client

import (
	"context"
	"errors"
	"time"
)

// stableFor is how long a connection must last for a drop to count as
// news rather than as another failure to connect.
const stableFor = 30 * time.Second

// Run connects to the bridge and keeps the connection until ctx ends,
// reconnecting with exponential backoff (1 s to 30 s, jittered) whenever it
// drops; a drop within stableFor of connecting counts as one more
// failure. It returns when ctx ends, closing the connection explicitly,
// or after a Fatal event (a refused token or no bridge URL), since
// retrying cannot help then. Retry cuts a backoff short.
func (c *Client) Run(ctx context.Context) {
	if c.opts.URL == "" {
		c.setState(StateOffline)
		c.emit(Event{Fatal: errors.New("no bridge URL: the page's address does not give one and #bridge= is not a ws:// or wss:// URL")})
		return
	}
	failures := 0
	for {
		c.setState(StateConnecting)
		began := time.Now()
		online, err := c.session(ctx)
		c.setConn(nil)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, ErrUnauthorized) {
			// Fatal first: the state that follows is then news of the
			// refusal, not of a drop that will be retried.
			c.emit(Event{Fatal: err})
			c.setState(StateOffline)
			return
		}
		c.setState(StateOffline)
		if online && time.Since(began) >= stableFor {
			// The connection held: start the backoff over. One the
			// bridge ends right after the hello (1013: this widget read
			// too slowly, or too many are open) backs off as a failed
			// dial does, instead of coming back every second.
			failures = 0
		}
		t := time.NewTimer(backoff(failures))
		failures++
		wake := make(chan struct{})
		c.mu.Lock()
		c.wake = wake
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-wake:
			t.Stop()
		}
		c.mu.Lock()
		c.wake = nil
		c.mu.Unlock()
	}
}
