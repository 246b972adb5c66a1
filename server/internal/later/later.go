// Package later runs the sweeps that forget what the bridge keeps for a
// while (kept answers, parsed params, schemas): a person's details must
// leave memory on time even when nothing else comes along to forget them.
package later

import (
	"time"
	"weak"
)

// Sweep has sweep(owner) run at due, unless a sweep is already set
// (*at) for a time after now; *at is then due. The caller holds the lock
// that guards *at, and sweep, which takes it, sets *at to zero and arms
// the next.
//
// The timer is never stopped or reset: the runtime refuses that from
// outside the testing/synctest bubble that made it, and a sweep already
// due is not counted on (it may belong to a bubble that ended, and never
// fire). It holds owner weakly, so that what is swept (a closed hub, say)
// is not kept in memory until it fires.
func Sweep[T any](at *time.Time, now, due time.Time, owner *T, sweep func(*T)) {
	if at.After(now) {
		return
	}
	*at = due
	w := weak.Make(owner)
	time.AfterFunc(due.Sub(now), func() {
		if o := w.Value(); o != nil {
			sweep(o)
		}
	})
}
