package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// runWidget answers every request it sees until ctx ends: first with
// invalid content (rejected), then with a valid answer naming itself. It
// counts the outcomes it hears.
func runWidget(ctx context.Context, w *widget, name string, outcomes *sync.Map) {
	var buf [][]byte
	for last := false; ; {
		var err error
		buf, err = w.s.Take(buf[:0])
		for _, f := range buf {
			var m wire.Message
			if json.Unmarshal(f, &m) != nil {
				panic("bad frame")
			}
			switch m.Method {
			case wire.MethodElicit:
				id, _ := wire.StringID(m.ID)
				w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": ""}})
				w.s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": name}})
			case wire.MethodSettled:
				var p wire.SettledParams
				json.Unmarshal(m.Params, &p)
				n, _ := outcomes.LoadOrStore(p.Outcome, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
			}
		}
		if err != nil || last {
			return
		}
		select {
		case <-w.wake:
		case <-ctx.Done():
			last = true // one more Take: what was queued before the end
		}
	}
}

// Many callers and widgets at once: every request settles exactly once,
// with a valid answer, and nothing races (run with -race).
func TestConcurrentCallersAndWidgets(t *testing.T) {
	const widgets, callers, perCaller = 8, 16, 20
	// A queue deep enough that a widget slowed by the race detector is not
	// cut off as too slow (TestSlowWidget covers that).
	h := newHub(t, &hub.Options{MaxPending: callers, RatePerMinute: callers * perCaller, MaxQueue: 1 << 16})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var outcomes sync.Map
	var wg sync.WaitGroup
	for i := range widgets {
		w := attach(t, h, "default", false)
		wg.Go(func() { runWidget(ctx, w, fmt.Sprintf("w%d", i), &outcomes) })
	}
	var calls sync.WaitGroup
	errs := make(chan error, callers*perCaller)
	for range callers {
		calls.Go(func() {
			for range perCaller {
				res, err := h.Elicit(ctx, "default", requester, json.RawMessage(nameForm), nil)
				switch {
				case err != nil:
					errs <- err
				case res.Action != wire.ActionAccept || len(res.Content["name"].(string)) != 2:
					errs <- fmt.Errorf("result %+v", res)
				}
			}
		})
	}
	calls.Wait()
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	count := func(outcome string) int64 {
		n, ok := outcomes.Load(outcome)
		if !ok {
			return 0
		}
		return n.(*atomic.Int64).Load()
	}
	// Each request: exactly one widget heard that its answer won.
	if got := count(wire.OutcomeAnswered); got != callers*perCaller {
		t.Errorf("%d answered; want exactly one per request (%d)", got, callers*perCaller)
	}
	if count(wire.OutcomeRejected) == 0 {
		t.Error("no invalid answer was rejected")
	}
}
