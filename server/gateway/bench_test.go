package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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
	for _, tc := range []struct{ channels, perChannel int }{{1, 10}, {100, 10}, {1000, 1}} {
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
			// Two callers per channel (at least 128), as on a busy bridge
			// where a person has more than one question waiting.
			b.SetParallelism(max(64, tc.channels) * 2 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			start, cpu0 := time.Now(), cpuTime()
			r0, w0 := syscalls()
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
			// The process's CPU time per elicitation (bridge and widgets):
			// steadier than wall time on a machine shared with other work.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
			if r1, w1 := syscalls(); r1 > 0 {
				b.ReportMetric(float64(r1-r0)/float64(b.N), "reads/op")
				b.ReportMetric(float64(w1-w0)/float64(b.N), "writes/op")
			}
			b.StopTimer()
			cancel()
			br.h.Close()
			wg.Wait()
		})
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// syscalls counts the process's read and write system calls so far
// (Linux's /proc/self/io; 0, 0 elsewhere).
func syscalls() (reads, writes int64) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0
	}
	for line := range strings.Lines(string(data)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "syscr":
			reads = n
		case "syscw":
			writes = n
		}
	}
	return reads, writes
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
