package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// outcome is what Submit's callback was called with.
type outcome struct {
	res *wire.ElicitResult
	err error
}

// submit calls Submit and returns a channel that gets its one outcome;
// a second call of the callback fails the test.
func submit(t *testing.T, ctx context.Context, h *hub.Hub, channel, params string, opts *hub.ElicitOptions) <-chan outcome {
	t.Helper()
	out := make(chan outcome, 2)
	h.Submit(ctx, channel, requester, json.RawMessage(params), opts, func(res *wire.ElicitResult, err error) {
		out <- outcome{res, err}
		if len(out) > 1 {
			t.Error("done called twice")
		}
	})
	return out
}

func TestSubmit(t *testing.T) {
	t.Run("answered", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHub(t, nil)
			w := attach(t, h, "default", false)
			out := submit(t, t.Context(), h, "default", nameForm, nil)
			id, _ := w.request()
			if err := w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}); err != nil {
				t.Fatal(err)
			}
			o := <-out
			if o.err != nil || o.res.Action != wire.ActionAccept || o.res.Content["name"] != "Ada" {
				t.Errorf("got %+v, %v; want accept Ada", o.res, o.err)
			}
			if got := w.settled(); got.Outcome != wire.OutcomeAnswered {
				t.Errorf("widget heard %q", got.Outcome)
			}
		})
	})
	t.Run("refused before it returns", func(t *testing.T) {
		h := newHub(t, nil)
		out := submit(t, t.Context(), h, "default", `{"message":"no schema"}`, nil)
		select {
		case o := <-out:
			var werr *wire.Error
			if !errors.As(o.err, &werr) || werr.Code != wire.CodeInvalidParams {
				t.Errorf("got %v; want -32602", o.err)
			}
		default:
			t.Fatal("a refusal was not reported before Submit returned")
		}
		out = submit(t, t.Context(), h, "nowhere", nameForm, nil)
		if o := <-out; !errors.Is(o.err, hub.ErrNoChannel) {
			t.Errorf("unknown channel: %v", o.err)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHub(t, nil)
			w := attach(t, h, "default", false)
			ctx, cancel := context.WithCancel(t.Context())
			out := submit(t, ctx, h, "default", nameForm, nil)
			id, _ := w.request()
			cancel()
			o := <-out
			if !errors.Is(o.err, context.Canceled) || o.res != nil {
				t.Errorf("got %+v, %v; want context.Canceled", o.res, o.err)
			}
			if got := w.settled(); got.Outcome != wire.OutcomeCancelled || got.RequestID != id {
				t.Errorf("widget heard %+v; want cancelled", got)
			}
		})
	})
	t.Run("expires", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHub(t, nil)
			out := submit(t, t.Context(), h, "default", nameForm, &hub.ElicitOptions{Timeout: time.Minute})
			time.Sleep(time.Minute)
			synctest.Wait()
			select {
			case o := <-out:
				if o.err != nil || o.res.Action != wire.ActionCancel {
					t.Errorf("got %+v, %v; want cancel", o.res, o.err)
				}
			default:
				t.Fatal("not expired after its timeout")
			}
		})
	})
	t.Run("hub closes", func(t *testing.T) {
		h := hub.New(nil)
		out := submit(t, context.Background(), h, "default", nameForm, nil)
		h.Close()
		if o := <-out; o.err != nil || o.res.Action != wire.ActionCancel {
			t.Errorf("got %+v, %v; want cancel", o.res, o.err)
		}
	})
}

// Requests with different timeouts on one channel expire each at its own
// deadline, in deadline order, whatever order they came in.
func TestExpiryOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(t, nil)
		w := attach(t, h, "default", false)
		timeouts := []time.Duration{3 * time.Minute, time.Minute, 5 * time.Minute, 2 * time.Minute, time.Minute}
		calls := make([]*call, len(timeouts))
		ids := make([]string, len(timeouts))
		for i, d := range timeouts {
			calls[i] = elicitAsync(t.Context(), h, "default", nameForm, &hub.ElicitOptions{Timeout: d})
			ids[i], _ = w.request()
		}
		// One answered early leaves the heap without disturbing the rest.
		w.s.Answer(ids[3], wire.ElicitResult{Action: wire.ActionDecline})
		w.settled()
		start := time.Now()
		for _, want := range []struct {
			at      time.Duration
			expired []int
		}{{time.Minute, []int{1, 4}}, {3 * time.Minute, []int{0}}, {5 * time.Minute, []int{2}}} {
			time.Sleep(want.at - time.Since(start) - time.Millisecond)
			for _, i := range want.expired {
				if calls[i].returned() {
					t.Fatalf("request %d (timeout %v) returned before %v", i, timeouts[i], want.at)
				}
			}
			time.Sleep(time.Millisecond)
			for _, i := range want.expired {
				if !calls[i].returned() {
					t.Fatalf("request %d (timeout %v) still pending at %v", i, timeouts[i], want.at)
				}
				if got := w.settled(); got.Outcome != wire.OutcomeExpired {
					t.Errorf("widget heard %+v; want expired", got)
				}
			}
		}
		w.none()
	})
}

// Requests that come in ever shorter timeouts each rise to the top of
// the expiry heap, however deep it is, and expire at their own deadline,
// not at the one they arrived below.
func TestExpiryShorterEachTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(t, nil)
		const n = 8
		calls := make([]*call, n)
		for i := range n {
			calls[i] = elicitAsync(t.Context(), h, "default", nameForm, &hub.ElicitOptions{Timeout: time.Duration(n-i) * time.Minute})
			synctest.Wait()
		}
		start := time.Now()
		for i := n - 1; i >= 0; i-- {
			at := time.Duration(n-i) * time.Minute
			time.Sleep(at - time.Since(start) - time.Millisecond)
			if calls[i].returned() {
				t.Fatalf("request %d (timeout %v) returned early", i, at)
			}
			time.Sleep(time.Millisecond)
			if !calls[i].returned() {
				t.Fatalf("request %d (timeout %v) still pending at its deadline", i, at)
			}
		}
	})
}

// Requests that share params share their parse, and the cache never
// mixes up two that differ.
func TestParseCache(t *testing.T) {
	h := newHub(t, nil)
	w := attach(t, h, "default", false)
	other := `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","minLength":5}},"required":["name"]}}`
	for round := range 3 {
		for _, tc := range []struct {
			params string
			valid  bool // "Ada" is a valid name
		}{{nameForm, true}, {other, false}} {
			c := elicitAsync(t.Context(), h, "default", tc.params, nil)
			id, _ := w.request()
			w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}})
			want := wire.OutcomeAnswered
			if !tc.valid {
				want = wire.OutcomeRejected
			}
			if got := w.settled(); got.Outcome != want {
				t.Fatalf("round %d: %q; want %q", round, got.Outcome, want)
			}
			if !tc.valid {
				w.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline})
				w.settled()
			}
			c.wait(t)
		}
	}
}

// A hub made outside a testing/synctest bubble can be used inside one and
// then outside again: the hub never stops or resets a timer a bubble
// started, which the runtime would refuse from outside the bubble.
func TestTimersAcrossBubbles(t *testing.T) {
	h := hub.New(nil)
	defer h.Close()
	synctest.Test(t, func(t *testing.T) {
		c := elicitAsync(t.Context(), h, "default", nameForm, &hub.ElicitOptions{Timeout: time.Minute})
		time.Sleep(time.Minute)
		if !c.returned() || c.res == nil || c.res.Action != wire.ActionCancel {
			t.Fatalf("in the bubble: %+v, %v; want an expired cancel", c.res, c.err)
		}
		// Pending when the bubble ends: its timer never fires.
		w := attach(t, h, "default", false)
		c = elicitAsync(t.Context(), h, "default", nameForm, &hub.ElicitOptions{Timeout: time.Hour})
		id, _ := w.request()
		w.s.Answer(id, wire.ElicitResult{Action: wire.ActionDecline})
		c.wait(t)
		w.s.Close()
	})
	res, err := h.Elicit(t.Context(), "default", requester, json.RawMessage(nameForm), &hub.ElicitOptions{Timeout: 10 * time.Millisecond})
	if err != nil || res.Action != wire.ActionCancel {
		t.Errorf("outside after the bubble: %+v, %v; want an expired cancel", res, err)
	}
}

// A request that waited with no widget connected is encoded when the
// first widget comes, once: every widget gets the same frame, with the
// bridge's metadata as if it had been encoded at once.
func TestFrameForLateWidget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(t, nil)
		start := time.Now()
		c := elicitAsync(t.Context(), h, "default", nameForm, &hub.ElicitOptions{Timeout: time.Minute})
		synctest.Wait()
		time.Sleep(10 * time.Second) // the frame must say when it was asked, not when it was sent
		a := attach(t, h, "default", false)
		b := attach(t, h, "default", false)
		fa, fb := a.nextRaw(), b.nextRaw()
		if &fa[0] != &fb[0] {
			t.Error("the widgets got two encodings of one request")
		}
		var m wire.Message
		var p wire.ElicitParams
		if err := json.Unmarshal(fa, &m); err != nil || json.Unmarshal(m.Params, &p) != nil {
			t.Fatalf("frame %s: %v", fa, err)
		}
		meta, ok := p.RequestMeta()
		if !ok || meta.Requester != requester || !meta.CreatedAt.Equal(start) || !meta.ExpiresAt.Equal(start.Add(time.Minute)) {
			t.Errorf("meta %+v; want %v, created %v, expiring a minute later", meta, requester, start)
		}
		id, _ := wire.StringID(m.ID)
		a.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}})
		if res, err := c.wait(t); err != nil || res.Action != wire.ActionAccept {
			t.Errorf("got %+v, %v", res, err)
		}
	})
}
