package hub

import (
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// Expiry: each channel keeps its pending requests in a min-heap by
// deadline and one timer for the earliest, instead of a timer per
// request. The timer is moved earlier when a request with an earlier
// deadline arrives, and is not moved at all when requests settle: if it
// fires with nothing due, it re-arms for the new earliest. With the
// usual single timeout, requests arrive in deadline order and the timer
// is set once per expiry, not once per request.
//
// Moving the timer earlier starts a new one; the old one, when it fires,
// sees it is not the latest and returns. The hub never stops or resets a
// timer, so one started in a testing/synctest bubble is never touched
// from outside it (which the runtime forbids), whichever goroutine
// submits, answers or closes.

// clock is the hub's monotonic time in nanoseconds.
func (h *Hub) clock(t time.Time) int64 { return int64(t.Sub(h.epoch)) }

// pushExpiry adds r to the heap and arms the timer if r is due first.
// The caller holds c.mu.
func (c *channel) pushExpiry(r *request, now int64) {
	r.index = int32(len(c.expiry))
	c.expiry = append(c.expiry, r)
	c.up(int(r.index))
	// A timer due already is firing, or belongs to a testing/synctest
	// bubble that ended (its clock is not this one): start another.
	if !c.armed || r.deadline < c.timerAt || c.timerAt <= now {
		c.arm(r.deadline, now)
	}
}

// arm starts a timer that fires at deadline. The caller holds c.mu.
func (c *channel) arm(deadline, now int64) {
	c.timerAt, c.armed = deadline, true
	c.timerGen++
	gen := c.timerGen
	time.AfterFunc(time.Duration(max(deadline-now, 0)), func() { c.expire(gen) })
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

// expire settles every request whose deadline passed and re-arms the
// timer for the next one, unless a later arm replaced timer gen.
func (c *channel) expire(gen uint64) {
	var due []*request
	var unseen []bool
	c.mu.Lock()
	if gen != c.timerGen || c.gone != nil {
		c.mu.Unlock()
		return
	}
	c.armed = false
	now := c.h.clock(time.Now())
	for len(c.expiry) > 0 && c.expiry[0].deadline <= now {
		r := c.expiry[0]
		neverSent := !r.sent
		if c.settleLocked(r, cancelResult, nil, "", wire.OutcomeExpired) {
			due = append(due, r)
			unseen = append(unseen, neverSent)
		}
	}
	if len(c.expiry) > 0 {
		c.arm(c.expiry[0].deadline, now)
	}
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
