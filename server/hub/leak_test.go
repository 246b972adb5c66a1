package hub

// Long-running bridge: what grows with the number of cycles of each path.
// Each test runs N cycles, forces GC and compares before and after.

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/leakcheck"
)

const leakForm = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}}`

var leakRequester = wire.Implementation{Name: "leak-test"}

// TestLeakDeletedChannel: a channel created, asked once (the caller waits,
// the question has the API's longest timeout) and deleted is gone after
// the delete: nothing keeps it.
func TestLeakDeletedChannel(t *testing.T) {
	const n = 2000
	h := New(&Options{MaxChannels: n + 10, Timeout: 24 * time.Hour})
	defer h.Close()
	before := leakcheck.Take()
	refs := make([]weak.Pointer[channel], 0, n)
	for i := range n {
		name := fmt.Sprintf("c-%d", i)
		if _, err := h.CreateChannel(name); err != nil {
			t.Fatal(err)
		}
		c, _ := h.channel(name)
		refs = append(refs, weak.Make(c))
		c = nil
		done := make(chan error, 1)
		h.Submit(context.Background(), name, leakRequester, []byte(leakForm), nil,
			func(_ *wire.ElicitResult, err error) { done <- err })
		if err := h.DeleteChannel(name); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	after := leakcheck.After(before)
	alive := 0
	for _, r := range refs {
		if r.Value() != nil {
			alive++
		}
	}
	// The heap keeps each question's timer (about 200 bytes) until its
	// deadline, never the channel.
	leakcheck.Check(t, "channels asked once and deleted", n, before, after, leakcheck.Limits{Heap: 1 << 20, Goroutines: 2, Files: 2}, fmt.Sprint(alive, " still reachable"))
	if alive > n/100 {
		t.Errorf("%d of %d deleted channels are still in memory (held until their question's deadline by the expiry timer)", alive, n)
	}
}

// TestLeakCancelledElicit: callers that leave (ctx cancelled) mid-wait, with
// and without a widget, URL and form mode.
func TestLeakCancelledElicit(t *testing.T) {
	const n = 5000
	for _, withWidget := range []bool{false, true} {
		for _, mode := range []string{"form", "url"} {
			t.Run(fmt.Sprintf("widget=%v/%s", withWidget, mode), func(t *testing.T) {
				h := New(&Options{RatePerMinute: 10 * n, Timeout: time.Hour})
				defer h.Close()
				var s *Session
				if withWidget {
					var err error
					s, err = h.Attach(DefaultChannel, &AttachOptions{Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}}}})
					if err != nil {
						t.Fatal(err)
					}
					defer s.Close()
				}
				c, _ := h.channel(DefaultChannel)
				var buf [][]byte
				cycle := func(i int) {
					params := leakForm
					if mode == "url" {
						params = fmt.Sprintf(`{"mode":"url","message":"m","elicitationId":"e-%d","url":"https://example.com/x"}`, i)
					}
					ctx, cancel := context.WithCancel(context.Background())
					if i%2 == 0 {
						done := make(chan struct{})
						go func() { h.Elicit(ctx, DefaultChannel, leakRequester, []byte(params), nil); close(done) }()
						for h.Pending(DefaultChannel) == 0 {
							runtime.Gosched()
						}
						cancel()
						<-done
					} else {
						done := make(chan struct{})
						h.Submit(ctx, DefaultChannel, leakRequester, []byte(params), nil, func(*wire.ElicitResult, error) { close(done) })
						cancel()
						<-done
					}
					if s != nil {
						buf, _ = s.Take(buf[:0])
					}
				}
				// Distinct URL requests fill the parse cache (bounded by
				// maxCachedBytes): fill it first, then measure.
				warm := 100
				if mode == "url" {
					warm = 3 * n
				}
				for i := range warm {
					cycle(n + i)
				}
				before := leakcheck.Take()
				for i := range n {
					cycle(i)
				}
				after := leakcheck.After(before)
				c.mu.Lock()
				st := fmt.Sprintf("pending=%d expiry=%d(cap %d) timers=%d urls=%d recent=%d sessions=%d", len(c.pending), len(c.expiry), cap(c.expiry), len(c.timers), len(c.urls), len(c.recent.entries), len(c.sessions))
				c.mu.Unlock()
				h.parsed.mu.Lock()
				st += fmt.Sprintf(" parsecache=%d/%dB held=%d", len(h.parsed.entries), h.parsed.bytes, h.held.Load())
				h.parsed.mu.Unlock()
				leakcheck.Check(t, "callers that left", n, before, after, leakcheck.Limits{Heap: 512 << 10, Goroutines: 2, Files: 2}, st)
				if len(c.pending) != 0 || h.held.Load() != 0 {
					t.Errorf("requests still held after their callers left: %s", st)
				}
			})
		}
	}
}
