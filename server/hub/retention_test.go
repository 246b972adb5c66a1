package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/maphash"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// The parse cache keeps the params of the questions it parsed, message
// and defaults included ("Refund 40 EUR to Jane Doe, IBAN …"), so that
// the same question asked again is not parsed again. A question nobody
// asks again must not stay in the bridge's memory for the life of the
// process after it settled: on a quiet bridge nothing else ever evicts
// it (the cache forgets only to make room).
func TestParseCacheForgetsIdleParams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := New(nil)
		defer h.Close()
		secret := "Refund 40 EUR to Jane Doe, IBAN DE89370400440532013000?"
		params := `{"message":"` + secret + `","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}`
		res, err := h.Elicit(context.Background(), "default", wire.Implementation{Name: "test"}, json.RawMessage(params),
			&ElicitOptions{Timeout: time.Minute})
		if err != nil || res.Action != wire.ActionCancel {
			t.Fatalf("Elicit = %+v, %v; want the expiry's cancel", res, err)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		h.parsed.mu.Lock()
		defer h.parsed.mu.Unlock()
		for _, e := range h.parsed.entries {
			if bytes.Contains(e.params, []byte("Jane Doe")) {
				t.Errorf("an hour after its question expired, and none asked since, the parse cache still holds its params: %s", e.params)
			}
		}
	})
}

// An entry asked again since the last sweep outlives the next one (it
// goes one to two sweeps after its last use, not after its parse), and
// once the cache is empty no sweep is left waiting.
func TestParseCacheKeepsParamsAskedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pc := parseCache{seed: maphash.MakeSeed()}
		params := []byte(`{"message":"m","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}`)
		first, err := pc.parse(params)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(cacheSweep + cacheSweep/2) // one sweep: parsed since the one before
		if p, _ := pc.parse(params); p != first {
			t.Fatal("parsed again a sweep and a half after its parse")
		}
		time.Sleep(cacheSweep) // another: asked again since the last one
		synctest.Wait()
		if p, _ := pc.parse(params); p != first {
			t.Error("forgotten at the first sweep after it was asked again")
		}
		time.Sleep(3 * cacheSweep) // unused for two sweeps: forgotten
		synctest.Wait()
		pc.mu.Lock()
		defer pc.mu.Unlock()
		if len(pc.entries) != 0 || !pc.sweepAt.IsZero() {
			t.Errorf("%d entries, sweep due at %v after idle sweeps; want none and none", len(pc.entries), pc.sweepAt)
		}
	})
}
