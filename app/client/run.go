package client

import (
	"context"
	"errors"
	"time"
)

// Run connects to the bridge and keeps the connection until ctx ends,
// reconnecting with exponential backoff (1 s to 30 s, jittered) whenever it
// drops. It returns when ctx ends, closing the connection explicitly, or
// after a Fatal event (a refused token or no bridge URL), since retrying
// cannot help then.
func (c *Client) Run(ctx context.Context) {
	if c.opts.URL == "" {
		c.setState(StateOffline)
		c.emit(Event{Fatal: errors.New("no bridge URL: the page's address does not give one and #bridge= is not a ws:// or wss:// URL")})
		return
	}
	failures := 0
	for {
		c.setState(StateConnecting)
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
		if online {
			// The bridge was reachable: start the backoff over.
			failures = 0
		}
		t := time.NewTimer(backoff(failures))
		failures++
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
