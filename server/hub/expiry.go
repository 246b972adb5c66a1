package hub

import (
	"slices"
	"time"
	"weak"

	"github.com/formbridge/formbridge/app/wire"
)

// Expiry: each channel keeps its pending requests in a min-heap by
// deadline, and a timer that fires by the earliest, instead of a timer
// per request. A request due sooner than every timer still to fire
// starts another; requests settling leave the timers be: one that fires
// with nothing due starts the next only if no other will fire in time.
// With the usual single timeout, requests arrive in deadline order and
// one timer is started per expiry, not per request.
//
// The hub never stops or resets a timer, so one started in a
// testing/synctest bubble is never touched from outside it (which the
// runtime forbids), whichever goroutine submits, answers or closes.
// Instead each channel lists the deadlines of its timers that have not
// fired (timers), and a request starts a timer only when none of them
// fires by its deadline: with one request waiting under a day's timeout,
// each short one used to leave a timer for that day behind (155 bytes
// each, until then).

// clock is the hub's monotonic time in nanoseconds.
func (h *Hub) clock(t time.Time) int64 { return int64(t.Sub(h.epoch)) }

// pushExpiry adds r to the heap and makes sure a timer fires by its
// deadline. The caller holds c.mu.
func (c *channel) pushExpiry(r *request, now int64) {
	r.index = int32(len(c.expiry))
	c.expiry = append(c.expiry, r)
	c.up(int(r.index))
	c.ensureTimer(now)
}

// ensureTimer starts a timer for the earliest deadline unless one still
// to fire will fire by then. A timer already due is not counted on: it
// may belong to a testing/synctest bubble that ended, whose clock is not
// this one and which never fires; another fires at once. (One that is
// merely waiting for c.mu expires everything due when it gets it.) The
// caller holds c.mu.
func (c *channel) ensureTimer(now int64) {
	if len(c.expiry) == 0 {
		return
	}
	first := c.expiry[0].deadline
	for _, at := range c.timers {
		if at > now && at <= first {
			return
		}
	}
	c.timers = append(c.timers, first)
	// The timer holds the channel weakly: a deleted channel's timers
	// (a question may wait a day) must not keep it, its maps and its
	// recent answers in memory until they fire (TestLeakDeletedChannel).
	// A channel still in use is held by the hub.
	wc := weak.Make(c)
	time.AfterFunc(time.Duration(max(first-now, 0)), func() {
		if c := wc.Value(); c != nil {
			c.expire(first)
		}
	})
}

// removeExpiry takes r out of the heap. The caller holds c.mu.
func (c *channel) removeExpiry(r *request) {
	i := int(r.index)
	if i < 0 {
		return
	}
	last := len(c.expiry) - 1
	if i != last {
		c.swap(i, last)
	}
	c.expiry[last] = nil
	c.expiry = c.expiry[:last]
	if i != last {
		c.down(i)
		c.up(i)
	}
	r.index = -1
	if len(c.expiry) == 0 && cap(c.expiry) > 1024 {
		c.expiry = nil // let a burst's backing array go
	}
}

// expire runs when the timer started for deadline at fires: it settles
// every request whose deadline passed, and makes sure a timer fires by
// the next one.
func (c *channel) expire(at int64) {
	var due []*request
	var unseen []bool
	c.mu.Lock()
	if i := slices.Index(c.timers, at); i >= 0 {
		last := len(c.timers) - 1
		c.timers[i] = c.timers[last]
		c.timers = c.timers[:last]
	}
	if c.gone != nil {
		c.mu.Unlock()
		return
	}
	now := c.h.clock(time.Now())
	for len(c.expiry) > 0 && c.expiry[0].deadline <= now {
		r := c.expiry[0]
		neverSent := !r.sent
		if c.settleLocked(r, cancelResult, nil, "", wire.OutcomeExpired) {
			due = append(due, r)
			unseen = append(unseen, neverSent)
		}
	}
	c.ensureTimer(now)
	c.mu.Unlock()
	for i, r := range due {
		r.finish()
		c.logExpired(r.id, unseen[i])
	}
}

// logExpired says a question ran out of time, and loudly when nobody
// could have seen it: the usual cause is a widget link never opened.
func (c *channel) logExpired(id string, unseen bool) {
	if unseen {
		c.h.log.Warn("a question expired without reaching anyone: no widget was open on its channel while it waited; send the person the channel's widget link", "channel", c.name, "id", id)
		return
	}
	c.h.log.Info("a question expired unanswered", "channel", c.name, "id", id)
}

func (c *channel) swap(i, j int) {
	c.expiry[i], c.expiry[j] = c.expiry[j], c.expiry[i]
	c.expiry[i].index = int32(i)
	c.expiry[j].index = int32(j)
}

func (c *channel) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if c.expiry[p].deadline <= c.expiry[i].deadline {
			return
		}
		c.swap(i, p)
		i = p
	}
}

func (c *channel) down(i int) {
	n := len(c.expiry)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && c.expiry[r].deadline < c.expiry[l].deadline {
			m = r
		}
		if c.expiry[i].deadline <= c.expiry[m].deadline {
			return
		}
		c.swap(i, m)
		i = m
	}
}
