package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// ElicitOptions tune one Elicit call. nil or zero fields mean the hub's defaults.
type ElicitOptions struct {
	Timeout time.Duration
}

var cancelResult = wire.ElicitResult{Action: wire.ActionCancel}

// request is one pending elicitation. It is what 100,000 waiting
// questions are made of, so it holds little: the frame (the server's
// params once, inside it), the parsed request and its view (shared
// through the parse cache), and links into its channel's queue and
// expiry heap. Its fields are guarded by channel.mu until it settles, and
// read-only after.
type request struct {
	id     string
	parsed *parsed
	frame  []byte // the elicitation/create frame, encoded once for every widget
	// unsent holds what the frame is made of until a widget needs it: a
	// request that waits with no widget connected keeps the caller's
	// params (which the caller holds anyway) instead of a copy.
	unsent *unsentFrame

	prev, next *request // channel.head..tail, arrival order
	deadline   int64    // on the hub's clock
	index      int32    // in channel.expiry; -1 when not there
	size       int32    // its params, view and compiled patterns, counted in Hub.held while it is pending
	url        bool
	settled    bool
	sent       bool // a widget got the frame (logExpired)

	// How the caller hears the end: Elicit waits for done to close;
	// Submit gave a callback, and stop unhooks it from its context.
	done   chan struct{}
	cb     func(*wire.ElicitResult, error)
	stop   func() bool
	result wire.ElicitResult
	err    error // the caller's ctx.Err() when its context settled it (Submit)
}

// Elicit puts params in front of the people on channel and blocks until
// it is settled. See the package contract in docs/TEAM.md:
//   - bad params: *wire.Error{Code: -32602, Data: []elicit.Problem};
//   - too many pending: *wire.Error{Code: -32000}; rate limited: -32002;
//   - unknown channel: ErrNoChannel;
//   - expiry or hub shutdown: action "cancel" and a nil error;
//   - ctx ended: ctx.Err(), after the widgets were told "cancelled".
//
// A caller that can wait without a goroutine of its own uses Submit.
func (h *Hub) Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *ElicitOptions) (*wire.ElicitResult, error) {
	r := &request{done: make(chan struct{})}
	c, res, err := h.submit(ctx, channel, &requester, params, opts, r)
	if c == nil {
		return res, err
	}
	return c.wait(ctx, r)
}

// wait blocks until r settles or ctx ends. It is not inlined into Elicit
// so that its frame (the select's) is not on the stack while submit runs:
// see TestElicitStack.
//
//go:noinline
func (c *channel) wait(ctx context.Context, r *request) (*wire.ElicitResult, error) {
	select {
	case <-r.done:
	case <-ctx.Done():
		if c.settle(r, cancelResult, wire.OutcomeCancelled) {
			return nil, ctx.Err()
		}
		// An answer won the race with the caller leaving: report it.
		<-r.done
	}
	return &wire.ElicitResult{Action: r.result.Action, Content: r.result.Content}, nil
}

// Submit is Elicit for a caller that can wait without a goroutine (an
// event loop, or a goroutine that waits anyway, like an HTTP handler's):
// it returns at once, and done is called exactly once with what Elicit
// would have returned. A refusal (bad params, limits, unknown channel)
// calls done before Submit returns; otherwise done is called later, from
// whichever goroutine settled the request, with no hub lock held. done
// must not block; it may call into the hub. The hub may keep params
// (not a copy) until done is called: do not change them before.
//
// A pending request costs no goroutine this way: only its frame, its
// place in the channel and, when ctx can end, a context.AfterFunc.
func (h *Hub) Submit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *ElicitOptions, done func(*wire.ElicitResult, error)) {
	r := &request{cb: done}
	c, res, err := h.submit(ctx, channel, &requester, params, opts, r)
	if c == nil {
		done(res, err)
		return
	}
	if ctx.Done() == nil {
		return // a context that never ends
	}
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		won := c.settleLocked(r, cancelResult, nil, "", wire.OutcomeCancelled)
		if won {
			r.err = ctx.Err()
		}
		c.mu.Unlock()
		if won {
			r.finish()
		}
	})
	c.mu.Lock()
	if !r.settled {
		r.stop = stop // finish calls it
		stop = nil
	}
	c.mu.Unlock()
	if stop != nil {
		stop() // settled already: unhook from ctx
	}
}

// submit checks params, and queues r on the channel. A nil channel means
// the request was not queued and res, err are the caller's answer.
//
// A caller blocked in Elicit keeps the stack its goroutine grew to while
// asking, for as long as it waits. So the way through here stays within
// Go's smallest goroutine stack (TestElicitStack): each step is a call of
// its own, kept out of line, so that no two steps' frames are on the stack
// at once, and rare paths (errors, a cache miss) have frames of their own.
func (h *Hub) submit(ctx context.Context, channel string, requester *wire.Implementation, params json.RawMessage, opts *ElicitOptions, r *request) (c *channel, res *wire.ElicitResult, err error) {
	c, err = h.channel(channel)
	if err != nil {
		return nil, nil, err
	}
	if h.isClosed() {
		return nil, &wire.ElicitResult{Action: wire.ActionCancel}, nil
	}
	p, err := h.parsed.parse(params)
	if err != nil {
		return nil, nil, invalidParams(err)
	}
	now, timeout := r.start(h, p, opts)
	timeout = shownTimeout(ctx, now, timeout)
	// What the frame is made of goes to the heap, not onto this stack.
	// With no widget to send it to, the frame is encoded when one comes
	// (encoding these params cannot fail); with widgets, now, outside
	// the channel's lock.
	r.keepUnsent(requester, params, now, timeout)
	if !canSplice(params) || c.widgets.Load() > 0 {
		if err := r.encodeNow(); err != nil {
			return nil, nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err // gone before it was asked: no widget sees it
	}
	if err := c.add(r, now); err != nil {
		if errors.Is(err, ErrClosed) {
			return nil, &wire.ElicitResult{Action: wire.ActionCancel}, nil
		}
		h.noteRefusal(channel, err)
		return nil, nil, err
	}
	return c, nil, nil
}

// start gives r its id and deadline, and returns the time it was asked
// and its timeout.
//
//go:noinline
func (r *request) start(h *Hub, p *parsed, opts *ElicitOptions) (now time.Time, timeout time.Duration) {
	timeout = h.opts.Timeout
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	now = time.Now()
	r.id = h.idPrefix + "-" + strconv.FormatUint(h.seq.Add(1), 36)
	r.parsed = p
	r.url = p.isURL()
	// A timeout meant as "forever" (math.MaxInt64) must not wrap the
	// deadline round to the past: that request would top the expiry
	// heap and the channel's later requests would get no timer.
	// (The clock is negative in a testing/synctest bubble, whose time
	// starts in 2000: no wrap is possible there.)
	r.deadline = h.clock(now)
	if r.deadline > 0 && int64(timeout) > math.MaxInt64-r.deadline {
		r.deadline = math.MaxInt64
	} else {
		r.deadline += int64(timeout)
	}
	r.index = -1
	return now, timeout
}

// shownTimeout is the time the widget is told the request has
// (expiresAt): timeout, or less when ctx ends sooner, as the request is
// withdrawn then. Its own expiry stays timeout's, so a caller whose ctx
// ends hears ctx.Err() as documented, never an expiry that raced it.
//
//go:noinline
func shownTimeout(ctx context.Context, now time.Time, timeout time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		if left := d.Sub(now); left < timeout {
			return max(left, 0)
		}
	}
	return timeout
}

// keepUnsent keeps what r's frame is made of, to encode it later.
//
//go:noinline
func (r *request) keepUnsent(requester *wire.Implementation, params json.RawMessage, now time.Time, timeout time.Duration) {
	// Requests with the same params share one parse, so its patterns
	// are counted once per request: more than they hold, never less.
	r.size = int32(len(params) + len(r.parsed.view) + r.parsed.patternBytes)
	u := &unsentFrame{params: params}
	u.stamp.set(requester, now, timeout)
	r.unsent = u
}

// encodeNow encodes r's frame from what keepUnsent kept.
//
//go:noinline
func (r *request) encodeNow() error {
	u := r.unsent
	frame, ok := spliceCreate(r.id, u.params, &u.stamp, r.parsed.view)
	if !ok {
		var err error
		if frame, err = encodeCreate(r.id, u.params, &u.stamp, r.parsed.view); err != nil {
			return &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
		}
	}
	r.frame, r.unsent = frame, nil
	return nil
}

// unsentFrame is what encodeCreate needs, kept until a widget needs the
// frame (the view is in r.parsed).
type unsentFrame struct {
	params json.RawMessage
	stamp  stamp
}

// encoded returns the elicitation/create frame for a widget, encoding it
// the first time and letting the caller's params go, and notes that a
// widget got it. The caller holds c.mu.
func (r *request) encoded() []byte {
	if u := r.unsent; u != nil {
		r.frame, _ = encodeCreate(r.id, u.params, &u.stamp, r.parsed.view) // canSplice(u.params): no error
		r.unsent = nil
	}
	r.sent = true
	return r.frame
}

// finish tells the caller how r settled. It runs once, after settleLocked
// returned true, with no hub lock held.
func (r *request) finish() {
	if r.done != nil {
		close(r.done)
	}
	if r.cb == nil {
		return
	}
	if r.stop != nil {
		r.stop()
	}
	if r.err != nil {
		r.cb(nil, r.err)
		return
	}
	r.cb(&wire.ElicitResult{Action: r.result.Action, Content: r.result.Content}, nil)
}

// maxRequesterText bounds each field of the requester: it is shown to the
// person and comes from a server or an HTTP caller, so it is untrusted.
const maxRequesterText = 200

// set stamps a request asked by requester at now. Overlong requester
// fields are shortened, and direction overrides (elicit.DirectionOverride:
// "Pay\u202Eroll" shows as "Payllor") taken out, rather than refused: an
// odd name is no reason not to ask.
func (st *stamp) set(requester *wire.Implementation, now time.Time, timeout time.Duration) {
	st.requester = *requester
	if oddRequesterText(requester.Name) || oddRequesterText(requester.Title) || oddRequesterText(requester.Version) {
		st.requester = cutRequester(requester)
	}
	st.created = now.UTC().Truncate(time.Millisecond)
	st.expires = now.Add(timeout).UTC().Truncate(time.Millisecond)
}

// oddRequesterText reports a requester field that cutRequester changes.
func oddRequesterText(s string) bool {
	return len(s) > maxRequesterText || strings.ContainsFunc(s, elicit.DirectionOverride)
}

// cutRequester is set's rare case, out of line: its buffers would
// otherwise sit on every caller's stack.
//
//go:noinline
func cutRequester(r *wire.Implementation) wire.Implementation {
	cut := func(s string) string {
		s = strings.Map(func(r rune) rune {
			if elicit.DirectionOverride(r) {
				return -1
			}
			return r
		}, s)
		if utf8.RuneCountInString(s) <= maxRequesterText {
			return s
		}
		return string([]rune(s)[:maxRequesterText-1]) + "…"
	}
	return wire.Implementation{Name: cut(r.Name), Title: cut(r.Title), Version: cut(r.Version)}
}

// invalidParams turns a ParseRequest error into the JSON-RPC error the
// caller passes on, with the problems as data.
//
//go:noinline
func invalidParams(err error) *wire.Error {
	var se *elicit.SchemaError
	if errors.As(err, &se) {
		return &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error(), Data: se.Problems}
	}
	return &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
}

// add queues r on the channel and sends it to every widget that can show
// it, or refuses it under the channel's limits.
func (c *channel) add(r *request, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.admit(now, r.size); err != nil {
		return err
	}
	c.pending[r.id] = r
	if c.tail == nil {
		c.head, c.tail = r, r
	} else {
		r.prev, c.tail.next, c.tail = c.tail, r, r
	}
	c.pushExpiry(r, c.h.clock(now))
	if r.url {
		c.trackURL(r.parsed.elicitationID())
	}
	if len(c.sessions) > 0 {
		c.offer(r)
	}
	return nil
}

// noteRefusal logs a request turned away by a limit, so the operator
// learns that callers are refused (and which limit to raise) from the
// bridge's log, not from the callers; at most ratelog.PerWindow lines a
// minute for each limit, since a refused caller may retry in a loop.
//
//go:noinline
func (h *Hub) noteRefusal(channel string, err error) {
	var werr *wire.Error
	if !errors.As(err, &werr) {
		return
	}
	switch werr.Code {
	case wire.CodeRateLimited:
		h.refusals.Log(h.log, slog.LevelWarn, "request refused: its channel's rate limit is reached", "channel", channel, "per_minute", h.opts.RatePerMinute)
	case wire.CodeTooManyPending:
		h.refusals.Log(h.log, slog.LevelWarn, "request refused: too many pending", "channel", channel, "err", werr.Message)
	}
}

// elsewhereAction is what settled frames with outcome say of the
// answer res: its action, for widgets another widget's answer beat.
func elsewhereAction(outcome string, res wire.ElicitResult) string {
	if outcome == wire.OutcomeAnsweredElsewhere {
		return res.Action
	}
	return ""
}

// admit says whether c takes one more request now, under its limits.
// The caller holds c.mu. Like offer, it is out of line to keep add's
// frame small (see submit).
//
//go:noinline
func (c *channel) admit(now time.Time, size int32) error {
	switch {
	case errors.Is(c.gone, ErrChannelDeleted):
		return ErrNoChannel
	case c.gone != nil:
		return ErrClosed
	}
	if max := c.h.opts.MaxPending; len(c.pending) >= max {
		return &wire.Error{
			Code:    wire.CodeTooManyPending,
			Message: fmt.Sprintf("too many pending requests on channel %q (at most %d)", c.name, max),
		}
	}
	if !c.h.hold(int64(size)) {
		return &wire.Error{
			Code:    wire.CodeTooManyPending,
			Message: fmt.Sprintf("the bridge holds as many pending requests as it can (%d MiB of them, on all channels); try again when some are answered", c.h.opts.MaxHeldBytes>>20),
		}
	}
	if wait, ok := c.rate.take(now, c.h.opts.RatePerMinute); !ok {
		c.h.held.Add(-int64(size))
		return &wire.Error{
			Code:    wire.CodeRateLimited,
			Message: fmt.Sprintf("rate limited: channel %q takes at most %d new requests a minute", c.name, c.h.opts.RatePerMinute),
			Data:    RateLimitData{RetryAfterSeconds: int(wait/time.Second) + 1},
		}
	}
	return nil
}

// hold counts n more bytes of pending requests, unless that would pass
// MaxHeldBytes.
func (h *Hub) hold(n int64) bool {
	for {
		cur := h.held.Load()
		if cur+n > h.opts.MaxHeldBytes {
			return false
		}
		if h.held.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// offer sends r to every widget on c that can show it. The caller holds
// c.mu.
//
//go:noinline
func (c *channel) offer(r *request) {
	for s := range c.sessions {
		if s.canShow(r) {
			s.push(r.encoded())
		}
	}
}

// RateLimitData is the data of a -32002 error.
type RateLimitData struct {
	RetryAfterSeconds int `json:"retryAfterSeconds"`
}

// settle ends r with res unless something settled it first. Every widget
// that holds r hears outcome. It reports whether this call settled r.
func (c *channel) settle(r *request, res wire.ElicitResult, outcome string) bool {
	c.mu.Lock()
	won := c.settleLocked(r, res, nil, "", outcome)
	c.mu.Unlock()
	if won {
		r.finish()
	}
	return won
}

// settleLocked ends r with res: winner (nil unless a widget answered)
// hears winnerOutcome, every other widget that holds r hears others.
// When it returns true the caller calls r.finish once it has let go of
// c.mu, so callers are told after the widgets, outside the lock.
func (c *channel) settleLocked(r *request, res wire.ElicitResult, winner *Session, winnerOutcome, others string) bool {
	if r.settled {
		return false
	}
	r.settled = true
	r.result = res
	delete(c.pending, r.id)
	c.h.held.Add(-int64(r.size))
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		c.head = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		c.tail = r.prev
	}
	r.prev, r.next = nil, nil
	c.removeExpiry(r)
	if r.url && res.Action != wire.ActionAccept {
		delete(c.urls, r.parsed.elicitationID()) // nothing will complete it
	}
	othersAction := elsewhereAction(others, res)
	c.recent.add(r.id, others, othersAction, res, winner != nil)

	var othersFrame []byte
	for s := range c.sessions {
		if !s.canShow(r) {
			continue
		}
		if s == winner {
			s.push(settledFrame(r.id, winnerOutcome, nil, ""))
			continue
		}
		if othersFrame == nil {
			othersFrame = settledFrame(r.id, others, nil, othersAction)
		}
		s.push(othersFrame)
	}
	return true
}
