// The fake bridge needs the host build of coder/websocket (a dialer with
// an HTTP client, and Accept), so these tests run on the host only.

//go:build !js

package client

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// runMem runs c against b; stop (which a test may call before its end)
// ends Run, waits for it, then takes b down.
func runMem(t *testing.T, b *fakeBridge, c *Client) (stop func()) {
	down := serveMem(t, b, c)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	return sync.OnceFunc(func() { cancel(); <-done; down() })
}

func TestBackoffBounds(t *testing.T) {
	for n := range 12 {
		base := min(minBackoff<<n, maxBackoff)
		lo := max(minBackoff, time.Duration(float64(base)*(1-jitter)))
		hi := min(maxBackoff, time.Duration(float64(base)*(1+jitter)))
		seen := map[time.Duration]bool{}
		for range 200 {
			d := backoff(n)
			if d < lo || d > hi {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, lo, hi)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("backoff(%d) gave %v every time: no jitter", n, base)
		}
	}
}

// timedRecorder notes the fake-clock time of each event.
type timedEvent struct {
	at time.Time
	ev Event
}

func TestReconnectBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b *fakeBridge
		b = &fakeBridge{t: t, serve: func(bc *bridgeConn) {
			switch n := len(b.dialTimes()); {
			case n <= 4:
				// Four failures in a row: dropped before hello.
			default:
				// Online, and silent: the client drops the fifth when its
				// heartbeat lapses (30 s, as long as stableFor), and the
				// backoff starts over.
				bc.hello("secret", bridgeInfo)
				for {
					if _, err := bc.read(); err != nil {
						return
					}
				}
			}
		}}
		var events []timedEvent
		c := New(Options{Token: "secret", OnEvent: func(ev Event) {
			events = append(events, timedEvent{time.Now(), ev})
		}})
		stop := runMem(t, b, c)
		defer stop()

		time.Sleep(70 * time.Second) // past the last connection, short of its heartbeat timeout
		dials := b.dialTimes()
		if len(dials) != 6 {
			t.Fatalf("client connected %d times in 70 s, want 6", len(dials))
		}
		// Bounds of backoff(n), jittered ±20% and clamped to [1 s, 30 s].
		want := []struct{ lo, hi time.Duration }{
			{1000 * time.Millisecond, 1200 * time.Millisecond},
			{1600 * time.Millisecond, 2400 * time.Millisecond},
			{3200 * time.Millisecond, 4800 * time.Millisecond},
			{6400 * time.Millisecond, 9600 * time.Millisecond},
			{wire.HeartbeatTimeout + 1000*time.Millisecond, wire.HeartbeatTimeout + 1200*time.Millisecond}, // after being online
		}
		for i, w := range want {
			if gap := dials[i+1].Sub(dials[i]); gap < w.lo || gap > w.hi {
				t.Errorf("delay before connection %d = %v, want within [%v, %v]", i+2, gap, w.lo, w.hi)
			}
		}
		stop()

		var states []State
		hellos := 0
		for _, e := range events {
			if e.ev.State != "" {
				states = append(states, e.ev.State)
			}
			if e.ev.Hello != nil {
				hellos++
			}
		}
		wantStates := []State{
			StateConnecting, StateOffline, StateConnecting, StateOffline, StateConnecting, StateOffline,
			StateConnecting, StateOffline, StateConnecting, StateOnline, StateOffline, StateConnecting, StateOnline,
		}
		if !slices.Equal(states, wantStates) {
			t.Errorf("states = %v, want %v", states, wantStates)
		}
		if hellos != 2 {
			t.Errorf("got %d hello events, want one per successful connection (2)", hellos)
		}
	})
}

// A bridge that ends each connection right after the hello (1013: the
// widget read too slowly, or too many are open) is not dialled again
// every second: the backoff grows as for failed dials (a review counted
// 285 connections in 5 minutes).
func TestReconnectBackoffAfterShortSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
			res := bridgeInfo
			res.Pending = 0
			if _, ok := bc.hello("secret", res); ok {
				bc.conn.Close(websocket.StatusTryAgainLater, "closed right after hello")
			}
		}}
		c := New(Options{Token: "secret"})
		stop := runMem(t, b, c)
		defer stop()
		time.Sleep(5 * time.Minute)
		stop()
		// 1+2+4+8+16 s, then every 30 s: about 14 in 5 minutes.
		if dials := b.dialTimes(); len(dials) > 16 || dials[4].Sub(dials[3]) < 6400*time.Millisecond {
			t.Errorf("%d connections in 5 minutes, the fourth wait %v; want the backoff to grow", len(dials), dials[4].Sub(dials[3]))
		}
	})
}

// Retry (the network back, the person back at the page) reconnects at
// once when the client waits out a backoff; a Retry while it is
// connected does not cut short the backoff after a later drop.
func TestRetryCutsBackoffShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b *fakeBridge
		b = &fakeBridge{t: t, serve: func(bc *bridgeConn) {
			if n := len(b.dialTimes()); n <= 4 || n == 6 {
				return // the network is down: dropped before hello
			}
			// The fifth connection is online for 20 s (under stableFor),
			// then drops.
			bc.hello("secret", bridgeInfo)
			gone := make(chan struct{})
			go func() {
				defer close(gone)
				for {
					if _, err := bc.read(); err != nil {
						return
					}
				}
			}()
			for range 2 {
				select {
				case <-gone:
					return
				case <-time.After(wire.HeartbeatInterval):
				}
				bc.notify(wire.MethodHeartbeat, wire.HeartbeatParams{Time: time.Now()})
			}
		}}
		c := New(Options{Token: "secret"})
		stop := runMem(t, b, c)
		defer stop()

		// Four failed dials: the fourth comes after waits of 1-1.2, 1.6-2.4
		// and 3.2-4.8 s (5.8-8.4 s in all); the fourth wait (6.4-9.6 s)
		// has begun, so the fifth is not before 12.2 s.
		time.Sleep(10 * time.Second)
		if n := len(b.dialTimes()); n != 4 {
			t.Fatalf("%d dials in 10 s, want 4", n)
		}
		retried := time.Now()
		// Twice before Run wakes, as the browser's online and
		// visibilitychange events may come together: the second finds
		// nothing to wake.
		c.Retry()
		c.Retry()
		synctest.Wait()
		dials := b.dialTimes()
		if len(dials) != 5 || dials[4] != retried {
			t.Fatalf("Retry during the backoff: dials %v, want a fifth at once (%v)", dials, retried)
		}
		time.Sleep(time.Second)
		c.Retry() // online now: nothing to cut short
		time.Sleep(2 * time.Minute)
		dials = b.dialTimes()
		if len(dials) < 7 {
			t.Fatalf("%d dials, want the dropped connection redialled twice", len(dials))
		}
		// The drop ended a connection of under stableFor: the wait after
		// it is the fifth backoff (16 s, jittered), not cut short.
		if gap := dials[5].Sub(dials[4]); gap < 2*wire.HeartbeatInterval+12800*time.Millisecond {
			t.Errorf("the redial after the drop came %v after the connection began; a Retry while online cut its backoff short", gap)
		}
	})
}

func TestHeartbeatTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var b *fakeBridge
		lost := make(chan time.Duration, 1)
		b = &fakeBridge{t: t, serve: func(bc *bridgeConn) {
			first := len(b.dialTimes()) == 1
			bc.hello("secret", bridgeInfo)
			// Heartbeats keep the connection; on the first connection they
			// stop after 20 s, as if the network silently went away.
			gone := make(chan struct{})
			defer close(gone)
			go func() {
				for i := 1; !first || i <= 2; i++ {
					select {
					case <-gone:
						return
					case <-time.After(wire.HeartbeatInterval):
					}
					bc.notify(wire.MethodHeartbeat, wire.HeartbeatParams{Time: time.Now()})
				}
			}()
			for {
				if _, err := bc.read(); err != nil {
					if first {
						lost <- time.Since(start)
					}
					return
				}
			}
		}}
		var (
			mu     sync.Mutex
			states []timedEvent
		)
		c := New(Options{Token: "secret", OnEvent: func(ev Event) {
			if ev.State != "" {
				mu.Lock()
				states = append(states, timedEvent{time.Now(), ev})
				mu.Unlock()
			}
		}})
		stop := runMem(t, b, c)
		defer stop()

		time.Sleep(5 * time.Minute)
		if got, want := <-lost, 20*time.Second+wire.HeartbeatTimeout; got != want {
			t.Errorf("client dropped the silent connection after %v, want %v (last heartbeat + timeout)", got, want)
		}
		if n := len(b.dialTimes()); n != 2 {
			t.Errorf("client connected %d times, want 2 (the second connection gets heartbeats and lives)", n)
		}
		mu.Lock()
		got := append([]timedEvent(nil), states...)
		mu.Unlock()
		if len(got) < 4 || got[2].ev.State != StateOffline || got[3].ev.State != StateConnecting {
			t.Fatalf("states = %+v, want connecting, online, offline, connecting, online", got)
		}
		if at := got[2].at.Sub(start); at != 50*time.Second {
			t.Errorf("went offline at %v, want 50s", at)
		}
	})
}

// An answer whose write fails is an error: a bridge that stopped reading
// holds the write until writeTimeout, and the widget must not show the
// answer as sent.
func TestRespondWriteFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
			res := bridgeInfo
			res.Pending = 0
			if _, ok := bc.hello("secret", res); ok {
				<-release // reads nothing more
			}
		}}
		online := make(chan struct{})
		c := New(Options{Token: "secret", OnEvent: func(ev Event) {
			if ev.Hello != nil {
				close(online)
			}
		}})
		stop := runMem(t, b, c)
		defer stop()
		<-online
		start := time.Now()
		if err := c.Respond("r1", wire.ElicitResult{Action: wire.ActionDecline}); err == nil || errors.Is(err, ErrOffline) {
			t.Errorf("Respond to a bridge that does not read = %v, want a write error", err)
		}
		if waited := time.Since(start); waited != writeTimeout {
			t.Errorf("Respond returned after %v, want %v", waited, writeTimeout)
		}
		close(release)
	})
}
