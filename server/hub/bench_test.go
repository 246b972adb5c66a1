package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// BenchmarkRoundTrip measures one settled elicitation: parse, queue, fan
// out to every widget, one widget's answer validated, the caller woken,
// every widget told. Callers run in parallel; one widget answers, the
// others only read (people watching the same channel).
func BenchmarkRoundTrip(b *testing.B) {
	for _, widgets := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("widgets=%d", widgets), func(b *testing.B) {
			h := hub.New(&hub.Options{MaxPending: 1 << 20, RatePerMinute: 1 << 30, MaxWidgets: widgets})
			defer h.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for i := range widgets {
				w := attach(b, h, "default", false)
				wg.Go(func() { benchWidget(ctx, w, i == 0) })
			}
			params := json.RawMessage(nameForm)
			b.ReportAllocs()
			b.SetParallelism(32) // many callers waiting at once, as on a busy bridge
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					res, err := h.Elicit(ctx, "default", requester, params, nil)
					if err != nil || res.Action != wire.ActionAccept {
						b.Errorf("%+v, %v", res, err)
						return
					}
				}
			})
			b.StopTimer()
			cancel()
			wg.Wait()
		})
	}
}

// benchWidget drains its session; if it answers, it accepts each request
// without decoding more of the frame than the id.
func benchWidget(ctx context.Context, w *widget, answers bool) {
	content := map[string]any{"name": "Ada"}
	var buf [][]byte
	for {
		buf, _ = w.s.Take(buf[:0])
		for _, f := range buf {
			if !answers {
				continue
			}
			var m struct {
				ID     string `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(f, &m) == nil && m.Method == wire.MethodElicit {
				w.s.Answer(m.ID, wire.ElicitResult{Action: wire.ActionAccept, Content: content})
			}
		}
		select {
		case <-w.wake:
		case <-ctx.Done():
			return
		}
	}
}

// BenchmarkPendingMemory holds b.N pending requests and reports the heap
// and goroutine stacks they take (runtime.MemStats HeapInuse and
// StackInuse, before and after): with caller=goroutine each has a caller
// blocked in Elicit, with caller=submit each was handed to Submit and
// costs no goroutine. 100,000 of them: -benchtime=100000x.
func BenchmarkPendingMemory(b *testing.B) {
	for _, caller := range []string{"goroutine", "submit"} {
		b.Run("caller="+caller, func(b *testing.B) {
			h := hub.New(&hub.Options{MaxPending: b.N + 1, RatePerMinute: b.N + 1})
			defer h.Close()
			params := json.RawMessage(nameForm)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range b.N {
				if caller == "goroutine" {
					wg.Go(func() { h.Elicit(ctx, "default", requester, params, nil) })
					continue
				}
				wg.Add(1)
				h.Submit(ctx, "default", requester, params, nil, func(*wire.ElicitResult, error) { wg.Done() })
			}
			for h.Pending("default") < b.N {
				runtime.Gosched()
			}
			// Two collections, as a running bridge's periodic ones: they
			// shrink any stack grown well past what its goroutine now uses.
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap := float64(after.HeapInuse) - float64(before.HeapInuse)
			stack := float64(after.StackInuse) - float64(before.StackInuse)
			b.ReportMetric(heap/float64(b.N), "heap-bytes/pending")
			b.ReportMetric(stack/float64(b.N), "stack-bytes/pending")
			b.ReportMetric((heap+stack)/(1<<20), "MB")
			cancel()
			wg.Wait()
		})
	}
}
