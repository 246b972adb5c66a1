package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
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

// The idiomatic way for a Go caller to bound its wait is a context with a
// deadline. The widget's countdown (expiresAt) must not promise the person
// more time than that: the form is withdrawn when the context ends.
func TestExpiresAtHonoursContextDeadline(t *testing.T) {
	h := newHub(t, nil) // 10 minutes by default
	w := attach(t, h, hub.DefaultChannel, false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	deadline, _ := ctx.Deadline()
	c := elicitAsync(ctx, h, hub.DefaultChannel, nameForm, nil)
	m := w.next()
	var p struct {
		Meta map[string]wire.RequestMeta `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if got := p.Meta[wire.MetaKey].ExpiresAt; got.After(deadline) {
		t.Errorf("expiresAt %v is %v after the caller's deadline: the widget promises time the caller does not wait", got, got.Sub(deadline).Round(time.Second))
	}
	cancel()
	if _, err := c.wait(t); !errors.Is(err, context.Canceled) {
		t.Errorf("Elicit = %v; want context.Canceled", err)
	}
}

// A zero-value Channel ("") in a Go host's Proxy, CallOptions or
// ClientOptions reaches the hub as is: the error says which channel it
// did not find, and stays ErrNoChannel.
func TestNoChannelNamesIt(t *testing.T) {
	h := newHub(t, nil)
	for _, name := range []string{"", "ops"} {
		_, err := h.Elicit(t.Context(), name, requester, json.RawMessage(nameForm), nil)
		if !errors.Is(err, hub.ErrNoChannel) || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("Elicit on %q: %v; want hub.ErrNoChannel naming %q", name, err, name)
		}
	}
}
