package mcpbridge

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// urlRetry is the -32042 rounds of one request: the links the person has
// opened, the server's word that each completed, and when to stop. A
// server need never say that a URL elicitation completed (2026-07-28 has
// no way to), and the only other way to learn is to send the request
// again: so it goes again when the server says so, or else after a wait
// that grows with each try, until the time is up. The person is asked
// only about links not yet opened.
type urlRetry struct {
	opened    map[string]bool // elicitation ids the person opened
	openedURL map[string]bool // and their addresses: a server may list one link under a new id each time
	completed map[string]bool // ids whose completion has sent the request again
	deadline  time.Time
	timeout   time.Duration
	tries     int // waits so far
	asks      int // rounds that asked the person

	// The completion channels of the ids listed so far, kept for the
	// whole request: a "done" that comes between two rounds still
	// counts. completions shares them with the notification handler.
	completions *completions
	waits       map[string]chan struct{}
	owned       []string
}

// The wait before sending a request again without word from the server:
// 1 s after the person opens the link, doubling to every 20 s. A person
// minutes in the other tab costs the server a few refused retries, and
// their result reaches the host within seconds of the server's "done".
const (
	urlRetryFirst = time.Second
	urlRetryMax   = 20 * time.Second
)

func newURLRetry(timeout time.Duration, c *completions) *urlRetry {
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	return &urlRetry{
		opened: map[string]bool{}, openedURL: map[string]bool{}, completed: map[string]bool{},
		deadline: time.Now().Add(timeout), timeout: timeout,
		completions: c, waits: map[string]chan struct{}{},
	}
}

// next is the wait before the next retry.
func (r *urlRetry) next() time.Duration {
	d := min(urlRetryFirst<<min(r.tries, 8), urlRetryMax)
	r.tries++
	return d
}

// listed notes an id the server listed, registering its completion
// channel the first time: before the person is asked, as completion may
// come the moment they open the link.
func (r *urlRetry) listed(id string) {
	if _, ok := r.waits[id]; ok {
		return
	}
	ch, owned := r.completions.register(id)
	r.waits[id] = ch
	if owned {
		r.owned = append(r.owned, id)
	}
}

// done releases the channels this request registered.
func (r *urlRetry) done() {
	for _, id := range r.owned {
		r.completions.release(id, r.waits[id])
	}
}

// toAsk reports whether the person must be asked about the link url
// listed as id; one opened before counts for the new id.
func (r *urlRetry) toAsk(id, url string) bool {
	if r.openedURL[url] {
		r.opened[id] = true
	}
	return !r.opened[id]
}

// open notes the person opened url, listed as id.
func (r *urlRetry) open(id, url string) {
	r.opened[id], r.openedURL[url] = true, true
}

// ask counts a round that puts links to the person, and fails past
// maxInputRounds: a server that lists new links at every retry would
// otherwise ask until the time is up.
func (r *urlRetry) ask() error {
	r.asks++
	if r.asks > maxInputRounds {
		return fmt.Errorf("the server listed new links to open more than %d times", maxInputRounds)
	}
	return nil
}

func (r *urlRetry) timeUp() error {
	return fmt.Errorf("the URL elicitations did not complete within %s", r.timeout)
}

// urlLink is a URL elicitation a -32042 lists: its id and address.
type urlLink struct{ id, url string }

// round is one -32042 round of a request, over the links the server
// listed, in its order. The person is asked about those not yet opened
// (askPerson gets their indices in links, and fails unless every one was
// opened), before the time is up; then round waits until the request
// should go again (await). The proxy asks about them all at once, a Go
// host one by one. notified: the protocol has a completion notification.
func (r *urlRetry) round(ctx context.Context, links []urlLink, notified bool, askPerson func(ctx context.Context, pending []int) error) error {
	if !time.Now().Before(r.deadline) {
		return r.timeUp()
	}
	ids := make([]string, len(links))
	var pending []int
	asking := map[string]bool{} // ids and addresses: a link listed twice is asked about once
	for i, l := range links {
		r.listed(l.id)
		ids[i] = l.id
		if r.toAsk(l.id, l.url) && !asking[l.id] && !asking[l.url] {
			pending = append(pending, i)
			asking[l.id], asking[l.url] = true, true
		}
	}
	if len(pending) > 0 {
		if err := r.ask(); err != nil {
			return err
		}
		askCtx, cancel := context.WithDeadline(ctx, r.deadline)
		defer cancel()
		if err := askPerson(askCtx, pending); err != nil {
			if ctx.Err() == nil && askCtx.Err() != nil {
				return r.timeUp()
			}
			return err
		}
		for _, i := range pending {
			r.open(links[i].id, links[i].url)
		}
	}
	return r.await(ctx, ids, notified)
}

// await waits, after the person has opened every link in ids, until the
// request should go again: at once when the server says the last of them
// completed, else when the next wait is up. notified is false where the
// protocol has no completion notification. A "done" already acted on
// does not send the request again at once: a server that says it and
// still answers -32042 gets the waits.
func (r *urlRetry) await(ctx context.Context, ids []string, notified bool) error {
	again := time.NewTimer(min(r.next(), time.Until(r.deadline)))
	defer again.Stop()
	fresh := false
	for _, id := range ids {
		if !notified || r.completed[id] {
			continue
		}
		select {
		case <-r.waits[id]:
			r.completed[id], fresh = true, true
		case <-again.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if fresh {
		return nil
	}
	select {
	case <-again.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// untold lists the links the person opened that the server never said
// completed: the widgets are told of them once the request goes through.
func (r *urlRetry) untold() []string {
	var ids []string
	for id := range r.opened {
		select {
		case <-r.waits[id]: // the server said so
		default:
			ids = append(ids, id)
		}
	}
	return ids
}

// completions are the URL elicitations that requests wait on, by id:
// the server's notification closes each one's channel once.
type completions struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// register gives the channel that the completion of id closes; owned
// when this call made it. An id already awaited (listed twice, or by
// another request) shares its channel.
func (c *completions) register(id string) (ch chan struct{}, owned bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.m[id]; ok {
		return ch, false
	}
	if c.m == nil {
		c.m = map[string]chan struct{}{}
	}
	ch = make(chan struct{})
	c.m[id] = ch
	return ch, true
}

// release forgets the channel of id, unless another has taken its place.
func (c *completions) release(id string, ch chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[id] == ch {
		delete(c.m, id)
	}
}

// complete closes the channel of id, if any request waits on it.
func (c *completions) complete(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.m[id]; ok {
		close(ch)
		delete(c.m, id)
	}
}
