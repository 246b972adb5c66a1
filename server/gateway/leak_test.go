package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/internal/leakcheck"
)

// TestLeakVanishingWidgets: widgets that go without a close frame (after
// hello, with a backlog) and sockets that never say hello.
func TestLeakVanishingWidgets(t *testing.T) {
	const n = 200
	for _, mode := range []string{"vanish-after-hello", "no-hello"} {
		t.Run(mode, func(t *testing.T) {
			o := &bridgeOptions{heartbeat: 20 * time.Millisecond}
			if mode == "no-hello" {
				// Those that say nothing are also let go by the deadline.
				// The others say hello, which a deadline this short could
				// refuse on a busy machine: the cycle would test nothing.
				o.hello = 30 * time.Millisecond
			}
			b := start(t, o)
			for range 5 {
				b.h.Submit(context.Background(), "default", requester, []byte(nameForm), nil, func(*wire.ElicitResult, error) {})
			}
			cycle := func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				c, _, err := websocket.Dial(ctx, b.url, &websocket.DialOptions{Subprotocols: []string{wire.Subprotocol}})
				if err != nil {
					t.Fatal(err)
				}
				c.SetReadLimit(wire.MaxFrameBytes)
				if mode == "vanish-after-hello" {
					cl := &client{t: t, c: c}
					cl.sendHello(token, false)
					cl.recv() // the hello result; the backlog follows
				}
				c.CloseNow() // no close frame
			}
			wait := func() {
				for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
					if b.h.Widgets("default") == 0 && gateway.Unauthenticated(b.gw) == 0 {
						return
					}
				}
				t.Fatalf("widgets %d, unauthenticated %d still held", b.h.Widgets("default"), gateway.Unauthenticated(b.gw))
			}
			for range 10 {
				cycle()
			}
			wait()
			time.Sleep(100 * time.Millisecond)
			before := leakcheck.Take()
			for range n {
				cycle()
			}
			wait()
			leakcheck.Check(t, "widgets that vanished", n, before, leakcheck.After(before), leakcheck.Limits{Heap: 256 << 10, Goroutines: 3, Files: 3}, "")
		})
	}
}
