package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/logbuf"
)

// done reports whether the call returned, once every goroutine of the
// bubble is blocked.
func (c *call) returned() bool {
	synctest.Wait()
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func TestExpiry(t *testing.T) {
	tests := []struct {
		name  string
		opts  *hub.ElicitOptions
		after time.Duration
	}{
		{"hub default", nil, hub.DefaultTimeout},
		{"per request", &hub.ElicitOptions{Timeout: 30 * time.Second}, 30 * time.Second},
		// ElicitOptions with Timeout 0 mean the hub's default, as nil does.
		{"zero per request", &hub.ElicitOptions{}, hub.DefaultTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := hub.New(nil)
				defer h.Close()
				w := attach(t, h, "default", false)
				call := elicitAsync(t.Context(), h, "default", nameForm, tt.opts)
				id, p := w.request()
				meta, _ := p.RequestMeta()
				if got := meta.ExpiresAt.Sub(meta.CreatedAt); got != tt.after {
					t.Errorf("expiresAt is %v after createdAt; want %v", got, tt.after)
				}
				time.Sleep(tt.after - time.Millisecond)
				if call.returned() {
					t.Fatal("expired early")
				}
				time.Sleep(time.Millisecond)
				if !call.returned() {
					t.Fatal("did not expire")
				}
				if call.err != nil || call.res.Action != wire.ActionCancel || call.res.Content != nil {
					t.Errorf("result %+v, %v; want a bare cancel", call.res, call.err)
				}
				if got := w.settled(); got.Outcome != wire.OutcomeExpired || got.RequestID != id {
					t.Errorf("widget heard %+v; want expired", got)
				}
				// An answer after expiry changes nothing and says why.
				w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}})
				if got := w.settled(); got.Outcome != wire.OutcomeExpired {
					t.Errorf("late answer heard %q; want expired", got.Outcome)
				}
			})
		})
	}
}

// Close settles every pending caller as cancel at once, tells the widgets,
// and ends their sessions.
// A request due while another arrives still expires on time: the hub
// once re-armed the channel's timer for the newcomer's deadline while
// the due timer waited for the lock, and the due request then waited 20 s
// past its 50 ms (a review's test, this one). One P, and a spin past the
// deadline, so that the due timer cannot run before the newcomer comes.
func TestExpiryWhileARequestArrives(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	h := hub.New(nil)
	defer h.Close()
	due := elicitAsync(context.Background(), h, "default", nameForm, &hub.ElicitOptions{Timeout: 50 * time.Millisecond})
	for h.Pending("default") == 0 {
		time.Sleep(time.Millisecond)
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(deadline) {
	}
	h.Submit(context.Background(), "default", requester, json.RawMessage(nameForm),
		&hub.ElicitOptions{Timeout: 5 * time.Second}, func(*wire.ElicitResult, error) {})
	select {
	case <-due.done:
	case <-time.After(2 * time.Second):
		t.Fatal("a 50 ms request still pending 2 s after its deadline, once another arrived")
	}
}

func TestCloseSettlesAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := hub.New(nil)
		other, _ := h.CreateChannel("other")
		w := attach(t, h, "default", false)
		calls := []*call{
			elicitAsync(t.Context(), h, "default", nameForm, nil),
			elicitAsync(t.Context(), h, "default", nameForm, nil),
			elicitAsync(t.Context(), h, other.Name, nameForm, nil),
		}
		synctest.Wait()
		h.Close()
		for i, c := range calls {
			if !c.returned() {
				t.Fatalf("call %d still blocked after Close", i)
			}
			if c.err != nil || c.res.Action != wire.ActionCancel {
				t.Errorf("call %d: %+v, %v; want cancel", i, c.res, c.err)
			}
		}
		w.request()
		w.request()
		for range 2 {
			if got := w.settled(); got.Outcome != wire.OutcomeCancelled {
				t.Errorf("widget heard %q; want cancelled", got.Outcome)
			}
		}
		if _, err := w.s.Take(nil); !errors.Is(err, hub.ErrClosed) {
			t.Errorf("session ended with %v; want ErrClosed", err)
		}
		res, err := h.Elicit(t.Context(), "default", requester, json.RawMessage(nameForm), nil)
		if err != nil || res.Action != wire.ActionCancel {
			t.Errorf("Elicit after Close: %+v, %v; want cancel", res, err)
		}
		if _, err := h.Attach("default", nil); !errors.Is(err, hub.ErrClosed) {
			t.Errorf("Attach after Close: %v; want ErrClosed", err)
		}
	})
}

func TestPendingLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := hub.New(&hub.Options{MaxPending: 2})
		defer h.Close()
		w := attach(t, h, "default", false)
		elicitAsync(t.Context(), h, "default", nameForm, nil)
		elicitAsync(t.Context(), h, "default", nameForm, nil)
		synctest.Wait()
		_, err := h.Elicit(t.Context(), "default", requester, json.RawMessage(nameForm), nil)
		var werr *wire.Error
		if !errors.As(err, &werr) || werr.Code != wire.CodeTooManyPending {
			t.Fatalf("third request: %v; want -32000", err)
		}
		// Another channel has its own limit.
		other, _ := h.CreateChannel("other")
		c := elicitAsync(t.Context(), h, other.Name, nameForm, nil)
		if c.returned() {
			t.Errorf("the other channel refused: %v", c.err)
		}
		// Settling one frees a place.
		id, _ := w.request()
		w.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline})
		c = elicitAsync(t.Context(), h, "default", nameForm, nil)
		if c.returned() {
			t.Errorf("refused after a place was freed: %v", c.err)
		}
	})
}

// Retry-After rounds up: a caller that waits the seconds it was told is
// not refused again, even when the wait is not whole seconds.
func TestRateLimitRetryAfterIsEnough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := hub.New(&hub.Options{RatePerMinute: 3})
		defer h.Close()
		for range 3 {
			elicitAsync(t.Context(), h, "default", nameForm, nil)
		}
		time.Sleep(500 * time.Millisecond) // the wait is 19.5 s
		_, err := h.Elicit(t.Context(), "default", requester, json.RawMessage(nameForm), nil)
		var werr *wire.Error
		d, ok := hub.RateLimitData{}, false
		if errors.As(err, &werr) {
			d, ok = werr.Data.(hub.RateLimitData)
		}
		if !ok {
			t.Fatalf("fourth request in a minute: %v; want -32002 with RateLimitData", err)
		}
		time.Sleep(time.Duration(d.RetryAfterSeconds) * time.Second)
		if c := elicitAsync(t.Context(), h, "default", nameForm, nil); c.returned() {
			t.Errorf("refused after waiting the %d s Retry-After said: %v", d.RetryAfterSeconds, c.err)
		}
	})
}

func TestRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := hub.New(&hub.Options{RatePerMinute: 3})
		defer h.Close()
		w := attach(t, h, "default", false)
		decline := func() {
			id, _ := w.request()
			w.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline})
			w.settled()
		}
		for range 3 {
			elicitAsync(t.Context(), h, "default", nameForm, nil)
			decline()
		}
		_, err := h.Elicit(t.Context(), "default", requester, json.RawMessage(nameForm), nil)
		var werr *wire.Error
		if !errors.As(err, &werr) || werr.Code != wire.CodeRateLimited {
			t.Fatalf("fourth request in a minute: %v; want -32002", err)
		}
		if d, ok := werr.Data.(hub.RateLimitData); !ok || d.RetryAfterSeconds < 1 || d.RetryAfterSeconds > 21 {
			t.Errorf("data %#v; want a retry after about 20 s", werr.Data)
		}
		time.Sleep(20 * time.Second) // a third of a minute refills one request
		c := elicitAsync(t.Context(), h, "default", nameForm, nil)
		if c.returned() {
			t.Errorf("still limited after the refill: %v", c.err)
		}
	})
}

// An expired question is logged, with a warning when no widget ever
// received it: the person never had the chance to answer.
func TestExpiryLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logbuf.Buffer
		h := hub.New(&hub.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		defer h.Close()
		opts := &hub.ElicitOptions{Timeout: time.Minute}

		// Only a widget that cannot show a link; then nobody (the escaped
		// text has the hub encode the frame at once).
		formOnly := attach(t, h, "default", false)
		for _, params := range []string{urlRequest, `{"message":"Caf\u00e9?","requestedSchema":{"type":"object","properties":{}}}`} {
			if params != urlRequest {
				formOnly.s.Close()
			}
			before := len(logs.String())
			unseen := elicitAsync(t.Context(), h, "default", params, opts)
			time.Sleep(time.Minute)
			if !unseen.returned() {
				t.Fatal("did not expire")
			}
			if got := logs.String()[before:]; !strings.Contains(got, "level=WARN") || !strings.Contains(got, "without reaching anyone") || !strings.Contains(got, "channel=default") {
				t.Errorf("log after %s expired unseen:\n%s\nwant a warning naming the channel", params, got)
			}
		}

		w := attach(t, h, "default", false)
		seen := elicitAsync(t.Context(), h, "default", nameForm, opts)
		id, _ := w.request()
		before := len(logs.String())
		time.Sleep(time.Minute)
		if !seen.returned() {
			t.Fatal("did not expire")
		}
		got := logs.String()[before:]
		if !strings.Contains(got, "expired unanswered") || !strings.Contains(got, "id="+id) || strings.Contains(got, "WARN") {
			t.Errorf("log after a question shown expired:\n%s\nwant one line at info naming %s", got, id)
		}
	})
}

// A request refused by a limit is logged, so the operator hears of it,
// but a caller retrying in a loop writes at most ratelog.PerWindow lines
// a minute; the next line says how many were left out.
func TestRefusalsLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logbuf.Buffer
		h := hub.New(&hub.Options{MaxPending: 1, RatePerMinute: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		defer h.Close()
		elicitAsync(t.Context(), h, "default", nameForm, nil)
		synctest.Wait()
		for range 30 {
			if _, err := h.Elicit(t.Context(), "default", requester, json.RawMessage(nameForm), nil); err == nil {
				t.Fatal("a request past MaxPending was taken")
			}
		}
		full := "msg=\"request refused: too many pending\" channel=default"
		if n := strings.Count(logs.String(), full); n != 20 {
			t.Errorf("%d lines for 30 refusals in a minute; want 20:\n%s", n, logs.String())
		}
		time.Sleep(time.Minute)
		before := len(logs.String())
		h.Elicit(t.Context(), "default", requester, json.RawMessage(nameForm), nil)
		if got := logs.String()[before:]; !strings.Contains(got, full) || !strings.Contains(got, "refusals_not_logged_before=10") {
			t.Errorf("the next minute's first refusal logged\n%s\nwant it to say 10 were left out", got)
		}

		// The rate limit has a line of its own, naming the limit.
		// (The first request, withdrawn, spends the minute's only one.)
		other, _ := h.CreateChannel("other")
		ctx, withdraw := context.WithCancel(t.Context())
		elicitAsync(ctx, h, other.Name, nameForm, nil)
		synctest.Wait()
		withdraw()
		synctest.Wait()
		before = len(logs.String())
		if _, err := h.Elicit(t.Context(), other.Name, requester, json.RawMessage(nameForm), nil); err == nil {
			t.Fatal("a request past the rate limit was taken")
		}
		if got := logs.String()[before:]; !strings.Contains(got, "level=WARN") || !strings.Contains(got, "rate limit") || !strings.Contains(got, "channel=other per_minute=1") {
			t.Errorf("rate-limited request logged\n%s\nwant a warning naming the channel and the limit", got)
		}
	})
}
