package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/hub"
)

// BenchmarkElicit measures settled elicitations through the HTTP API:
// keep-alive clients post round-robin over channels, each channel has a
// widget (a hub session in this process, no WebSocket) that accepts.
func BenchmarkElicit(b *testing.B) {
	const channels = 100
	h := hub.New(&hub.Options{MaxPending: 1 << 16, RatePerMinute: 1 << 30})
	srv := httptest.NewServer(api.New(h, &api.Options{APIKey: apiKey}))
	defer srv.Close()
	defer h.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	names := make([]string, channels)
	for i := range names {
		ch, err := h.CreateChannel(fmt.Sprint("ch-", i))
		if err != nil {
			b.Fatal(err)
		}
		names[i] = ch.Name
		wake := make(chan struct{}, 1)
		s, err := h.Attach(ch.Name, &hub.AttachOptions{Notify: func() {
			select {
			case wake <- struct{}{}:
			default:
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() { acceptAll(ctx, s, wake) })
	}
	body := []byte(`{"params":` + nameForm + `,"requester":{"name":"bench"}}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	var next atomic.Uint64
	b.SetParallelism(64)
	b.ResetTimer()
	cpu0 := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			ch := names[next.Add(1)%channels]
			req, _ := http.NewRequest("POST", srv.URL+"/api/v1/channels/"+ch+"/elicitations", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+apiKey)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
}

// acceptAll answers every request queued on s with a valid accept.
func acceptAll(ctx context.Context, s *hub.Session, wake <-chan struct{}) {
	content := map[string]any{"name": "Ada"}
	var buf [][]byte
	for {
		buf, _ = s.Take(buf[:0])
		for _, f := range buf {
			var m struct {
				ID     string `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(f, &m) == nil && m.Method == wire.MethodElicit {
				s.Answer(m.ID, wire.ElicitResult{Action: wire.ActionAccept, Content: content})
			}
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return
		}
	}
}

// cpuTime is the CPU time this process has used, user and system: a
// steadier measure than wall time on a machine shared with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
