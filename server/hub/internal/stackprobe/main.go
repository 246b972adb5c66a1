// Command stackprobe prints the goroutine stack that a caller blocked in
// hub.Elicit keeps, with no widget connected and with one, for
// TestElicitStack. Run it with GODEBUG=adaptivestackstart=0, so that every
// goroutine starts at Go's smallest stack (2 KiB): what a caller keeps
// beyond that is what the hub's path grew it to. Go halves a grown stack
// only when under a quarter of it is in use, so a waiting caller keeps
// the deepest stack its call reached. With GOGC=off as well, no
// allocation on the way has to help a running collection, which goes
// deeper than the hub's own code.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

const form = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","minLength":2},"age":{"type":"integer","minimum":0}},"required":["name"]}}`

func main() {
	n := flag.Int("n", 5000, "callers to block in hub.Elicit")
	flag.Parse()
	for _, widget := range []bool{false, true} {
		perCaller, err := measure(*n, widget)
		if err != nil {
			fmt.Fprintln(os.Stderr, "stackprobe:", err)
			os.Exit(1)
		}
		fmt.Printf("widget=%v %.0f\n", widget, perCaller)
	}
}

// measure returns the stack bytes per caller blocked in hub.Elicit.
func measure(n int, widget bool) (float64, error) {
	h := hub.New(&hub.Options{MaxPending: n + 1, RatePerMinute: n + 1})
	defer h.Close()
	if widget {
		// A widget that never reads (the hub queues up to MaxPending
		// frames for it): every request is encoded on its caller's
		// goroutine.
		s, err := h.Attach(hub.DefaultChannel, &hub.AttachOptions{
			Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}}},
		})
		if err != nil {
			return 0, err
		}
		defer s.Close()
	}
	params := json.RawMessage(form)
	requester := wire.Implementation{Name: "stackprobe", Version: "1"}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		wg.Go(func() { h.Elicit(ctx, hub.DefaultChannel, requester, params, nil) })
	}
	for h.Pending(hub.DefaultChannel) < n {
		runtime.Gosched()
	}
	runtime.GC() // shrinks what it can, as a running bridge's collections would
	runtime.GC()
	runtime.ReadMemStats(&after)
	return (float64(after.StackInuse) - float64(before.StackInuse)) / float64(n), nil
}
