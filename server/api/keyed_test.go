package api

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// An answer is kept for keyedRetention after its question settled, and
// at most maxKeyedSettled are kept, the oldest going first; a pending
// question is never dropped.
func TestKeyedQuestionsForget(t *testing.T) {
	now := time.Unix(1e9, 0)
	q := newKeyedQuestions()
	q.now = func() time.Time { return now }
	body := sha256.Sum256([]byte("q"))
	answered := &wire.ElicitResult{Action: "accept"}

	pending, _, _ := q.claim(t.Context(), "c", "pending", body)
	old, _, _ := q.claim(t.Context(), "c", "old", body)
	q.settle(old, answered, nil)
	now = now.Add(keyedRetention - time.Second)
	if k, fresh, _ := q.claim(t.Context(), "c", "old", body); fresh || k != old {
		t.Fatal("an answer was forgotten before keyedRetention")
	}
	now = now.Add(time.Second)
	if _, fresh, _ := q.claim(t.Context(), "c", "old", body); !fresh {
		t.Error("an answer was kept past keyedRetention")
	}
	now = now.Add(24 * time.Hour)
	if k, fresh, _ := q.claim(t.Context(), "c", "pending", body); fresh || k != pending {
		t.Error("a pending question was forgotten")
	}

	var first *keyed
	for i := range maxKeyedSettled + 1 {
		k, _, _ := q.claim(t.Context(), "c", string(rune('a'+i%26))+time.Duration(i).String(), body)
		q.settle(k, answered, nil)
		if i == 0 {
			first = k
		}
	}
	if len(q.settled) != maxKeyedSettled {
		t.Errorf("%d answers kept; want at most %d", len(q.settled), maxKeyedSettled)
	}
	if k, fresh, _ := q.claim(t.Context(), "c", first.id.key, body); !fresh || k == first {
		t.Error("the oldest answer was kept beyond the bound")
	}

	// A few large answers reach the bound in bytes first.
	big := &wire.ElicitResult{Action: "accept", Content: map[string]any{"text": string(make([]byte, 1<<20))}}
	for i := range maxKeyedBytes>>20 + 4 {
		k, _, _ := q.claim(t.Context(), "big", time.Duration(i).String(), body)
		q.settle(k, big, nil)
	}
	if q.bytes > maxKeyedBytes || len(q.settled) > maxKeyedBytes>>20 {
		t.Errorf("%d answers, %d bytes by count, kept; want at most %d bytes", len(q.settled), q.bytes, maxKeyedBytes)
	}
}

// The bounds are those docs/PROTOCOL.md gives callers: the test above
// follows the constants, so it would not notice them change.
func TestKeyedBoundsAsDocumented(t *testing.T) {
	if keyedRetention != 15*time.Minute || maxKeyedSettled != 10000 || maxKeyedBytes != 32<<20 {
		t.Errorf("answers kept %v, at most %d and %d bytes; PROTOCOL.md says 15 minutes, 10,000 and 32 MB",
			keyedRetention, maxKeyedSettled, maxKeyedBytes)
	}
}
