// Package hubtest is a widget for tests of the packages above the hub: a
// session on a channel whose frames the test reads one at a time.
package hubtest

import (
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// Widget attaches to channel as a widget that shows both kinds of
// request, and returns the session (to answer with) and a function that
// returns the next frame the hub queues for it, failing t after 10 s.
func Widget(t testing.TB, h *hub.Hub, channel string) (*hub.Session, func() string) {
	t.Helper()
	wake := make(chan struct{}, 1)
	s, err := h.Attach(channel, &hub.AttachOptions{
		Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}}},
		Notify: func() {
			select {
			case wake <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf [][]byte
	next := func() string {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for len(buf) == 0 {
			buf, _ = s.Take(buf)
			if len(buf) > 0 {
				break
			}
			select {
			case <-wake:
			case <-deadline:
				t.Fatal("no frame for the widget")
			}
		}
		f := string(buf[0])
		buf = buf[1:]
		return f
	}
	return s, next
}
