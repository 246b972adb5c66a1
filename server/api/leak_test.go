package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/leakcheck"
)

const leakForm = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`

// TestLeakAbandonedLongPolls: callers that give up mid-wait, without a key
// and with one (then withdrawn by the key).
func TestLeakAbandonedLongPolls(t *testing.T) {
	const n = 300
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			h := hub.New(&hub.Options{RatePerMinute: 100 * n, Timeout: time.Hour})
			defer h.Close()
			handler := newHandler(h, &Options{APIKey: "k"})
			srv := httptest.NewServer(handler)
			defer srv.Close()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			post := func(ctx context.Context, key string) {
				req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/v1/channels/default/elicitations", strings.NewReader(`{"params":`+leakForm+`}`))
				req.Header.Set("Authorization", "Bearer k")
				if key != "" {
					req.Header.Set("Idempotency-Key", key)
				}
				resp, err := client.Do(req)
				if err == nil {
					resp.Body.Close()
				}
			}
			cycle := func(i int) {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				key := ""
				if keyed {
					key = fmt.Sprintf("key-%d", i)
				}
				go func() { post(ctx, key); close(done) }()
				deadline := time.Now().Add(5 * time.Second)
				for h.Pending("default") == 0 {
					if time.Now().After(deadline) {
						t.Fatal("the question never reached the hub")
					}
					time.Sleep(100 * time.Microsecond)
				}
				cancel()
				<-done
				if keyed {
					req, _ := http.NewRequest("DELETE", srv.URL+"/api/v1/channels/default/elicitations", nil)
					req.Header.Set("Authorization", "Bearer k")
					req.Header.Set("Idempotency-Key", key)
					resp, err := client.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusNoContent {
						t.Fatalf("withdraw: %s", resp.Status)
					}
				}
				for deadline := time.Now().Add(5 * time.Second); h.Pending("default") != 0; {
					if time.Now().After(deadline) {
						t.Fatal("the question stayed pending")
					}
					time.Sleep(100 * time.Microsecond)
				}
			}
			for i := range 20 {
				cycle(n + i)
			}
			tr.CloseIdleConnections()
			time.Sleep(50 * time.Millisecond)
			before := leakcheck.Take()
			for i := range n {
				cycle(i)
			}
			tr.CloseIdleConnections()
			time.Sleep(100 * time.Millisecond)
			leakcheck.Check(t, "abandoned long polls", n, before, leakcheck.After(before), leakcheck.Limits{Heap: 1 << 20, Goroutines: 5, Files: 5}, "")
		})
	}
}
