package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// BenchmarkSettled measures settled elicitations per second through real
// WebSockets: callers on every channel, each channel watched by several
// widgets of which one answers. The widgets run in this process too, so
// the bridge gets well under the whole machine.
func BenchmarkSettled(b *testing.B) {
	for _, tc := range []struct{ channels, perChannel int }{{1, 10}, {100, 10}} {
		b.Run(fmt.Sprintf("channels=%d/widgets=%d", tc.channels, tc.channels*tc.perChannel), func(b *testing.B) {
			br := start(b, &bridgeOptions{hub: hub.Options{
				DefaultToken: token, MaxPending: 1 << 16, RatePerMinute: 1 << 30, MaxWidgets: tc.perChannel,
			}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			names := make([]string, tc.channels)
			var wg sync.WaitGroup
			for i := range names {
				ch, err := br.h.CreateChannel(fmt.Sprintf("ch-%d", i))
				if err != nil {
					b.Fatal(err)
				}
				names[i] = ch.Name
				for j := range tc.perChannel {
					c := dial(b, br)
					c.hello(ch.Token, false)
					wg.Go(func() { benchWidget(ctx, c.c, j == 0) })
				}
			}
			var next atomic.Uint64
			params := json.RawMessage(nameForm)
			b.SetParallelism(64)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					ch := names[next.Add(1)%uint64(len(names))]
					res, err := br.h.Elicit(ctx, ch, requester, params, nil)
					if err != nil || res.Action != wire.ActionAccept {
						b.Errorf("%+v, %v", res, err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "settled/s")
			b.StopTimer()
			cancel()
			br.h.Close()
			wg.Wait()
		})
	}
}

// benchWidget reads every frame; the answering widget accepts each request.
func benchWidget(ctx context.Context, c *websocket.Conn, answers bool) {
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		if !answers {
			continue
		}
		var m struct {
			ID     string `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(data, &m) == nil && m.Method == wire.MethodElicit {
			c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":"`+m.ID+`","result":{"action":"accept","content":{"name":"Ada"}}}`))
		}
	}
}
