package hub_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// A Go caller may pass a timeout meaning "as long as it takes"
// (math.MaxInt64). Its deadline must not wrap around: the request
// must stay pending, and a short request asked after it on the same
// channel must still expire on time.
func TestHugeTimeout(t *testing.T) {
	for _, tt := range []struct {
		name string
		hub  *hub.Options
		opts *hub.ElicitOptions
	}{
		{"per call", nil, &hub.ElicitOptions{Timeout: math.MaxInt64}},
		{"hub default", &hub.Options{Timeout: math.MaxInt64}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHub(t, tt.hub)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			long := elicitAsync(ctx, h, hub.DefaultChannel, nameForm, tt.opts)
			for h.Pending(hub.DefaultChannel) != 1 {
				time.Sleep(time.Millisecond)
			}
			short := elicitAsync(context.Background(), h, hub.DefaultChannel, nameForm, &hub.ElicitOptions{Timeout: 50 * time.Millisecond})
			select {
			case <-short.done:
			case <-time.After(3 * time.Second):
				t.Fatal("a 50 ms request asked after one with a huge timeout did not expire in 3 s")
			}
			if res, err := short.wait(t); err != nil || res.Action != wire.ActionCancel {
				t.Fatalf("short request: %v, %v; want cancel", res, err)
			}
			select {
			case <-long.done:
				t.Fatalf("the request with a huge timeout ended at once: %v, %v", long.res, long.err)
			case <-time.After(100 * time.Millisecond):
			}
		})
	}
}
