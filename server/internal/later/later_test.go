package later

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type owner struct {
	mu     sync.Mutex
	at     time.Time
	swept  []time.Duration
	origin time.Time
}

func (o *owner) sweep() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.at = time.Time{}
	o.swept = append(o.swept, time.Since(o.origin))
}

// One sweep at a time: arming again before the set one is due changes
// nothing; one that is due (or never fired) is replaced.
func TestSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &owner{origin: time.Now()}
		arm := func(after time.Duration) {
			o.mu.Lock()
			defer o.mu.Unlock()
			now := time.Now()
			Sweep(&o.at, now, now.Add(after), o, (*owner).sweep)
		}
		arm(time.Minute)
		arm(time.Second) // a sweep is set for later than now: kept
		time.Sleep(2 * time.Minute)
		arm(time.Minute)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		o.mu.Lock()
		defer o.mu.Unlock()
		if len(o.swept) != 2 || o.swept[0] != time.Minute || o.swept[1] != 3*time.Minute {
			t.Errorf("swept at %v, want at 1m0s and 3m0s", o.swept)
		}
		// A sweep set but never run (its bubble ended) is not waited on.
		o.at = time.Now().Add(-time.Second)
		o.mu.Unlock()
		arm(time.Minute)
		time.Sleep(2 * time.Minute)
		o.mu.Lock()
		if len(o.swept) != 3 {
			t.Errorf("a sweep overdue was counted on: swept at %v", o.swept)
		}
	})
}
