package api

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// PROTOCOL.md: "An answer is kept for 15 minutes after the question
// settled". What a person typed must not stay in the bridge's memory
// longer because no other keyed call came along to sweep it: on a quiet
// bridge the last answers of the day would otherwise stay until the
// process ends (in a heap dump, a core file, swap).
func TestKeyedAnswerForgottenWithoutAnotherCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newKeyedQuestions()
		k, fresh, err := q.claim(context.Background(), "default", "refund-1042", [32]byte{1})
		if err != nil || !fresh {
			t.Fatalf("claim: %v, fresh %v", err, fresh)
		}
		q.settle(k, &wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"iban": "DE89370400440532013000"}}, nil)

		time.Sleep(keyedRetention + time.Minute)
		synctest.Wait()

		q.mu.Lock()
		defer q.mu.Unlock()
		if len(q.settled) != 0 || len(q.byID) != 0 || q.bytes != 0 {
			t.Errorf("%v after the question settled, with no call since: %d answers, %d keys, %d bytes kept; want none",
				keyedRetention+time.Minute, len(q.settled), len(q.byID), q.bytes)
		}
	})
}

// Each kept answer goes on time, not only the oldest: the sweep that
// forgets one is set again for the next.
func TestKeyedAnswersForgottenOneAfterAnother(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newKeyedQuestions()
		for i, key := range []string{"first", "second"} {
			if i > 0 {
				time.Sleep(5 * time.Minute)
			}
			k, _, _ := q.claim(context.Background(), "default", key, [32]byte{1})
			q.settle(k, &wire.ElicitResult{Action: wire.ActionAccept}, nil)
		}
		time.Sleep(keyedRetention + 6*time.Minute) // past both
		synctest.Wait()

		q.mu.Lock()
		defer q.mu.Unlock()
		if len(q.settled) != 0 || len(q.byID) != 0 {
			t.Errorf("%d answers, %d keys kept past their time; want none", len(q.settled), len(q.byID))
		}
	})
}
