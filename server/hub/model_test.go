package hub

// A model-based test: a seeded random sequence of operations on a hub
// (channels made and deleted, widgets attaching, leaving and answering,
// callers asking with Elicit and Submit, withdrawing, requests expiring,
// the hub closed) checked step by step against a reference model of what
// PROTOCOL.md and the doc comments promise. It runs in a testing/synctest
// bubble so that each step's effects (expiry timers, the goroutines of
// withdrawn callers) are complete before the step is checked, and a seed
// replays exactly.
//
//	HUB_MODEL_SEEDS=500 go test -race ./server/hub -run TestModel   # more seeds
//	HUB_MODEL_SEED=1234 go test ./server/hub -run TestModel -v      # one seed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/leakcheck"
)

const (
	modelSteps      = 250
	modelMaxPending = 5 // small, so that refusals happen too
)

// modelForm wants a name of at least two characters; q names the
// request, so a frame can be matched to the model's request.
func modelForm(q int) string {
	return `{"message":"q` + strconv.Itoa(q) + `","requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":2}},"required":["name"]}}`
}

func modelURL(q int) string {
	return `{"mode":"url","message":"q` + strconv.Itoa(q) + `","elicitationId":"e-` + strconv.Itoa(q) + `","url":"https://example.com/q"}`
}

// A schema the bridge cannot show: refused before any widget sees it.
const modelBadParams = `{"message":"bad","requestedSchema":{"type":"string"}}`

func TestModel(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if s := os.Getenv("HUB_MODEL_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seeds = []uint64{n}
	} else if s := os.Getenv("HUB_MODEL_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		seeds = seeds[:0]
		for i := range n {
			seeds = append(seeds, uint64(i+1))
		}
	}
	before := leakcheck.Take()
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runModel(t, seed) })
		})
	}
	// synctest.Test already fails if a goroutine of the bubble is left
	// blocked; this catches any that escaped it.
	after := leakcheck.After(before)
	leakcheck.Check(t, "model runs", len(seeds), before, after, leakcheck.Limits{Heap: 64 << 20, Goroutines: 2, Files: 2}, "")
}

// mChan is one channel as the model sees it: a name made again after a
// delete is another mChan.
type mChan struct {
	name    string
	gen     int
	live    bool
	pending []*mReq          // arrival order
	recent  map[string]*mReq // settled here, by id: late answers hear the outcome again
}

type mWidget struct {
	n     int
	ch    *mChan
	s     *Session
	url   bool
	state string // "attached", "left" (we closed it), "ended" (delete or close)
	err   error  // why it ended
	seen  []*mReq
}

type mReq struct {
	q        int
	ch       *mChan
	url      bool
	elicit   bool // Elicit, else Submit
	cancel   context.CancelFunc
	deadline time.Time
	id       string // learned from the first create frame a widget got

	settled          bool
	outcome, action  string // what widgets other than the winner heard
	answered         bool
	won              wire.ElicitResult
	wantRes          *wire.ElicitResult
	wantErr          error
	wantCode         int // a refusal's *wire.Error code
	refused, noQueue bool

	// What the caller got, written by its goroutine or callback.
	mu    sync.Mutex
	calls int
	res   *wire.ElicitResult
	err   error
}

func (r *mReq) got(res *wire.ElicitResult, err error) {
	r.mu.Lock()
	r.calls++
	r.res, r.err = res, err
	r.mu.Unlock()
}

func (r *mReq) String() string { return "q" + strconv.Itoa(r.q) }

type model struct {
	t       *testing.T
	seed    uint64
	rng     *rand.Rand
	h       *Hub
	closed  bool
	chans   map[string]*mChan
	widgets []*mWidget
	reqs    []*mReq
	byID    map[string]*mReq
	steps   []string
	heard   map[string]int        // frames by kind over the run, to show what it exercised
	want    map[*mWidget][]string // frames each widget should get this step
	ordered bool                  // compare this step's frames in order (a backlog)
}

func (m *model) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d, step %d: %s\nsteps:\n  %s\nreplay: HUB_MODEL_SEED=%d go test ./server/hub -run TestModel",
		m.seed, len(m.steps), fmt.Sprintf(format, args...), strings.Join(m.steps, "\n  "), m.seed)
}

func runModel(t *testing.T, seed uint64) {
	m := &model{
		t:     t,
		seed:  seed,
		rng:   rand.New(rand.NewPCG(seed, 0x6d6f64656c)),
		chans: map[string]*mChan{},
		byID:  map[string]*mReq{},
		heard: map[string]int{},
	}
	m.h = New(&Options{Timeout: time.Hour, MaxPending: modelMaxPending, RatePerMinute: 1 << 20})
	defer m.h.Close() // a failed step must not leave callers blocked in the bubble
	m.chans[DefaultChannel] = &mChan{name: DefaultChannel, live: true, recent: map[string]*mReq{}}
	for _, name := range []string{"a", "b"} {
		m.createChannel(name)
	}
	for range modelSteps {
		m.step()
	}
	m.do("close", m.close)
	for _, r := range m.reqs {
		if !r.settled {
			m.fail("%v still pending in the model after Close", r)
		}
	}
	if held := m.h.held.Load(); held != 0 {
		m.fail("held %d bytes after Close", held)
	}
	t.Logf("%d requests; frames heard: %v", len(m.reqs), m.heard)
}

// step picks one operation the model's state allows and applies it.
func (m *model) step() {
	names := []string{DefaultChannel, "a", "b"}
	switch k := m.rng.IntN(100); {
	case k < 14:
		name := names[m.rng.IntN(len(names))]
		url := m.rng.IntN(3) == 0
		m.do(fmt.Sprintf("attach %s url=%v", name, url), func() { m.attach(name, url) })
	case k < 20:
		if w := m.pickWidget(true); w != nil {
			m.do(fmt.Sprintf("w%d leaves", w.n), func() { m.leave(w) })
		}
	case k < 45:
		name := names[m.rng.IntN(len(names))]
		m.ask(name)
	case k < 75:
		m.answer()
	case k < 83:
		var open []*mReq
		for _, r := range m.reqs {
			if r.cancel != nil && !r.refused {
				open = append(open, r)
			}
		}
		if len(open) > 0 {
			r := open[m.rng.IntN(len(open))]
			m.do(fmt.Sprintf("%v withdrawn", r), func() { m.withdraw(r) })
		}
	case k < 93:
		d := time.Duration(1+m.rng.IntN(3)) * time.Second
		m.do(fmt.Sprintf("sleep %v", d), func() { m.sleep(d) })
	case k < 96:
		name := names[1+m.rng.IntN(2)]
		m.do("delete "+name, func() { m.deleteChannel(name) })
	default:
		name := names[1+m.rng.IntN(2)]
		m.do("create "+name, func() { m.createChannel(name) })
	}
}

// do runs op, lets every goroutine of the bubble it started finish, and
// checks the hub against the model.
func (m *model) do(name string, op func()) {
	m.t.Helper()
	m.steps = append(m.steps, name)
	m.want = map[*mWidget][]string{}
	m.ordered = false
	op()
	synctest.Wait()
	m.check()
}

func (m *model) pickWidget(attachedOnly bool) *mWidget {
	var ws []*mWidget
	for _, w := range m.widgets {
		if !attachedOnly || w.state == "attached" {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return ws[m.rng.IntN(len(ws))]
}

func (m *model) expect(w *mWidget, frame string) { m.want[w] = append(m.want[w], frame) }

// tell queues, for every widget on r's channel that can show r, the frame
// f(w) returns ("" for none).
func (m *model) tell(r *mReq, f func(w *mWidget) string) {
	for _, w := range m.widgets {
		if w.ch == r.ch && w.state == "attached" && (!r.url || w.url) {
			if s := f(w); s != "" {
				m.expect(w, s)
			}
		}
	}
}

func (m *model) createChannel(name string) {
	_, err := m.h.CreateChannel(name)
	old := m.chans[name]
	var want error
	switch {
	case m.closed:
		want = ErrClosed
	case old != nil && old.live:
		want = ErrChannelExists
	}
	if !errors.Is(err, want) || (want == nil) != (err == nil) {
		m.fail("CreateChannel(%q) = %v; want %v", name, err, want)
	}
	if err == nil {
		gen := 0
		if old != nil {
			gen = old.gen + 1
		}
		m.chans[name] = &mChan{name: name, gen: gen, live: true, recent: map[string]*mReq{}}
	}
}

func (m *model) deleteChannel(name string) {
	err := m.h.DeleteChannel(name)
	c := m.chans[name]
	if c == nil || !c.live {
		if !errors.Is(err, ErrNoChannel) {
			m.fail("DeleteChannel(%q) of no channel = %v; want ErrNoChannel", name, err)
		}
		return
	}
	if err != nil {
		m.fail("DeleteChannel(%q) = %v", name, err)
	}
	c.live = false
	if !m.closed { // a closed hub settled and detached everything already
		m.shutdown(c, ErrChannelDeleted)
	}
}

func (m *model) close() {
	m.h.Close()
	m.closed = true
	for _, c := range m.chans {
		if c.live {
			m.shutdown(c, ErrClosed)
		}
	}
	m.h.Close() // idempotent: no second round of notices
}

// shutdown is a channel deleted or the hub closed: every pending request
// settles as cancel, widgets hear "cancelled" and end with reason.
func (m *model) shutdown(c *mChan, reason error) {
	for _, r := range slices.Clone(c.pending) {
		m.settle(r, wire.OutcomeCancelled, "", &wire.ElicitResult{Action: wire.ActionCancel}, nil)
		m.tell(r, func(*mWidget) string { return "settled " + r.String() + " cancelled" })
	}
	for _, w := range m.widgets {
		if w.ch == c && w.state == "attached" {
			w.state, w.err = "ended", reason
		}
	}
}

// settle records how r ended in the model; widgets' notices are the
// caller's to expect.
func (m *model) settle(r *mReq, outcome, action string, res *wire.ElicitResult, err error) {
	if r.settled {
		m.fail("model bug: %v settled twice", r)
	}
	r.settled = true
	r.outcome, r.action = outcome, action
	r.wantRes, r.wantErr = res, err
	r.ch.pending = slices.DeleteFunc(r.ch.pending, func(p *mReq) bool { return p == r })
	if r.id != "" {
		r.ch.recent[r.id] = r
	}
}

func (m *model) attach(name string, url bool) {
	caps := wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}}}
	if url {
		caps.Elicitation.URL = &struct{}{}
	}
	s, err := m.h.Attach(name, &AttachOptions{Capabilities: caps})
	c := m.chans[name]
	var want error
	switch {
	case c == nil || !c.live:
		want = ErrNoChannel
	case m.closed:
		want = ErrClosed
	}
	if want != nil || err != nil {
		if !errors.Is(err, want) || want == nil {
			m.fail("Attach(%q) = %v; want %v", name, err, want)
		}
		return
	}
	w := &mWidget{n: len(m.widgets), ch: c, s: s, url: url, state: "attached"}
	m.widgets = append(m.widgets, w)
	m.steps[len(m.steps)-1] += fmt.Sprintf(" = w%d", w.n)
	m.ordered = true
	n := 0
	for _, r := range c.pending {
		if !r.url || url {
			m.expect(w, "create "+r.String())
			n++
		}
	}
	if s.Backlog() != n {
		m.fail("w%d's backlog is %d; want %d", w.n, s.Backlog(), n)
	}
}

func (m *model) leave(w *mWidget) {
	w.s.Close()
	w.state = "left"
}

// ask has a caller ask on name, in one of the ways a caller can.
func (m *model) ask(name string) {
	r := &mReq{q: len(m.reqs), url: m.rng.IntN(4) == 0, elicit: m.rng.IntN(2) == 0}
	params := modelForm(r.q)
	if r.url {
		params = modelURL(r.q)
	}
	bad := m.rng.IntN(20) == 0
	if bad {
		params = modelBadParams
	}
	var opts *ElicitOptions
	timeout := time.Hour
	if m.rng.IntN(2) == 0 {
		timeout = time.Duration(1+m.rng.IntN(6)) * time.Second
		opts = &ElicitOptions{Timeout: timeout}
	}
	ctx := context.Background()
	if m.rng.IntN(3) > 0 {
		ctx, r.cancel = context.WithCancel(ctx)
	}
	how := "Submit"
	if r.elicit {
		how = "Elicit"
	}
	desc := fmt.Sprintf("%v: %s on %s url=%v timeout=%v withdrawable=%v bad=%v", r, how, name, r.url, timeout, r.cancel != nil, bad)
	m.reqs = append(m.reqs, r)
	m.do(desc, func() {
		r.deadline = time.Now().Add(timeout)
		c := m.chans[name]
		switch {
		case c == nil || !c.live:
			r.refused, r.wantErr = true, ErrNoChannel
		case m.closed:
			r.refused, r.wantRes = true, &wire.ElicitResult{Action: wire.ActionCancel}
		case bad:
			r.refused, r.wantCode = true, wire.CodeInvalidParams
		case len(c.pending) >= modelMaxPending:
			r.refused, r.wantCode = true, wire.CodeTooManyPending
		}
		if r.refused {
			r.settled = true
		} else {
			r.ch = c
			c.pending = append(c.pending, r)
			m.tell(r, func(*mWidget) string { return "create " + r.String() })
		}
		if r.elicit {
			go func() {
				r.got(m.h.Elicit(ctx, name, wire.Implementation{Name: "model"}, json.RawMessage(params), opts))
			}()
		} else {
			m.h.Submit(ctx, name, wire.Implementation{Name: "model"}, json.RawMessage(params), opts, r.got)
		}
	})
}

func (m *model) withdraw(r *mReq) {
	r.cancel()
	if r.settled {
		return // too late: nothing changes
	}
	m.settle(r, wire.OutcomeCancelled, "", nil, context.Canceled)
	m.tell(r, func(*mWidget) string { return "settled " + r.String() + " cancelled" })
}

func (m *model) sleep(d time.Duration) {
	time.Sleep(d)
	now := time.Now()
	for _, r := range slices.Clone(m.reqs) {
		if r.ch != nil && !r.settled && !r.deadline.After(now) {
			m.settle(r, wire.OutcomeExpired, "", &wire.ElicitResult{Action: wire.ActionCancel}, nil)
			m.tell(r, func(*mWidget) string { return "settled " + r.String() + " expired" })
		}
	}
}

// answer has some widget answer some request, validly or not.
func (m *model) answer() {
	w := m.pickWidget(m.rng.IntN(10) > 0)
	if w == nil {
		return
	}
	// Mostly a request it was shown; sometimes any id known, or none.
	var id string
	var r *mReq
	switch k := m.rng.IntN(10); {
	case k < 7 && len(w.seen) > 0:
		r = w.seen[m.rng.IntN(len(w.seen))]
		id = r.id
	case k < 9 && len(m.byID) > 0:
		ids := make([]string, 0, len(m.byID))
		for id := range m.byID {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		id = ids[m.rng.IntN(len(ids))]
		r = m.byID[id]
	default:
		id = "nope"
	}
	var res wire.ElicitResult
	var kind string
	switch k := m.rng.IntN(12); {
	case k < 3:
		kind, res = "accept valid", wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": []string{"Ada", "Bob", "Cy"}[m.rng.IntN(3)]}}
	case k < 6:
		kind = "accept invalid"
		res = wire.ElicitResult{Action: wire.ActionAccept, Content: []map[string]any{{"name": "Z"}, {}, {"name": 7.0}, nil}[m.rng.IntN(4)]}
	case k < 8:
		kind, res = "decline", wire.ElicitResult{Action: wire.ActionDecline, Content: map[string]any{"name": "dropped"}}
	case k < 10:
		kind, res = "cancel", wire.ElicitResult{Action: wire.ActionCancel}
	case k < 11:
		kind, res = "bad action", wire.ElicitResult{Action: "maybe"}
	default:
		kind = "the winning answer again"
		if r != nil && r.answered {
			res = r.won
		} else {
			res = wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}
		}
	}
	if r != nil && r.url && res.Action == wire.ActionAccept {
		res.Content = nil // a URL request's accept carries none
	}
	target := id
	if r != nil {
		target = r.String()
	}
	m.do(fmt.Sprintf("w%d answers %s: %s %v", w.n, target, kind, res), func() { m.applyAnswer(w, id, r, res) })
}

func (m *model) applyAnswer(w *mWidget, id string, r *mReq, res wire.ElicitResult) {
	err := w.s.Answer(id, res)
	wantFail := func(want error) {
		if !errors.Is(err, want) {
			m.fail("Answer = %v; want %v", err, want)
		}
	}
	if res.Action != wire.ActionAccept && res.Action != wire.ActionDecline && res.Action != wire.ActionCancel {
		var werr *wire.Error
		if !errors.As(err, &werr) || werr.Code != wire.CodeInvalidParams {
			m.fail("Answer with a bad action = %v; want -32602", err)
		}
		return
	}
	switch w.state {
	case "left":
		wantFail(errSessionDetached)
		return
	case "ended":
		wantFail(w.err)
		return
	}
	if res.Action != wire.ActionAccept {
		res.Content = nil
	}
	pendingHere := r != nil && r.ch == w.ch && !r.settled
	switch {
	case pendingHere && r.url && !w.url:
		wantFail(ErrUnknownRequest) // a mode it did not declare is not its to answer
	case pendingHere:
		if err != nil {
			m.fail("Answer = %v", err)
		}
		if !r.url && res.Action == wire.ActionAccept && !validName(res.Content) {
			m.expect(w, "settled "+r.String()+" rejected")
			return
		}
		if r.url && res.Action == wire.ActionAccept {
			res.Content = nil
		}
		r.answered, r.won = true, res
		m.settle(r, wire.OutcomeAnsweredElsewhere, res.Action, &wire.ElicitResult{Action: res.Action, Content: res.Content}, nil)
		m.tell(r, func(o *mWidget) string {
			if o == w {
				return "settled " + r.String() + " answered"
			}
			return "settled " + r.String() + " answered-elsewhere " + res.Action
		})
	case r != nil && r.ch == w.ch && r.ch.recent[id] == r:
		if err != nil {
			m.fail("late Answer = %v; want nil and the outcome again", err)
		}
		if r.answered && digest(res) == digest(r.won) {
			m.expect(w, "settled "+r.String()+" answered")
		} else {
			m.expect(w, strings.TrimSpace("settled "+r.String()+" "+r.outcome+" "+r.action))
		}
	default:
		wantFail(ErrUnknownRequest)
	}
}

func validName(content map[string]any) bool {
	s, ok := content["name"].(string)
	return ok && len(s) >= 2
}

// check compares the hub with the model after a step.
func (m *model) check() {
	m.t.Helper()
	m.checkFrames()
	for _, r := range m.reqs {
		r.mu.Lock()
		calls, res, err := r.calls, r.res, r.err
		r.mu.Unlock()
		switch {
		case !r.settled && calls != 0:
			m.fail("%v is pending in the model, but its caller got %+v, %v", r, res, err)
		case !r.settled:
		case calls != 1:
			m.fail("%v's caller was told %d times; want once", r, calls)
		case r.wantCode != 0:
			var werr *wire.Error
			if !errors.As(err, &werr) || werr.Code != r.wantCode || res != nil {
				m.fail("%v's caller got %+v, %v; want error %d", r, res, err, r.wantCode)
			}
		case r.wantErr != nil:
			if !errors.Is(err, r.wantErr) || res != nil {
				m.fail("%v's caller got %+v, %v; want %v", r, res, err, r.wantErr)
			}
		default:
			if err != nil || res == nil || res.Action != r.wantRes.Action || !reflect.DeepEqual(res.Content, r.wantRes.Content) {
				m.fail("%v's caller got %+v, %v; want %+v", r, res, err, r.wantRes)
			}
		}
	}
	for name, c := range m.chans {
		want := ChannelStatus{}
		if c.live {
			want.Pending = len(c.pending)
			if !m.closed {
				for _, w := range m.widgets {
					if w.ch == c && w.state == "attached" {
						want.Widgets++
					}
				}
			}
		}
		got, err := m.h.Status(name)
		if (err == nil) != c.live || got != want {
			m.fail("Status(%q) = %+v, %v; want %+v", name, got, err, want)
		}
		if got := m.h.Pending(name); got != want.Pending {
			m.fail("Pending(%q) = %d; want %d", name, got, want.Pending)
		}
		if hc, _ := m.h.channel(name); hc != nil {
			m.checkInternals(hc, c)
		}
	}
	anyPending := false
	for _, r := range m.reqs {
		anyPending = anyPending || !r.settled
	}
	if held := m.h.held.Load(); (held != 0) != anyPending {
		m.fail("held = %d bytes with pending requests %v", held, anyPending)
	}
}

// checkInternals: the channel's queue, map and expiry heap hold the
// model's pending requests, and nothing else.
func (m *model) checkInternals(hc *channel, c *mChan) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	var order []int
	for r := hc.head; r != nil; r = r.next {
		order = append(order, qOf(r))
	}
	var want []int
	for _, r := range c.pending {
		want = append(want, r.q)
	}
	if !slices.Equal(order, want) || len(hc.pending) != len(want) || len(hc.expiry) != len(want) {
		m.fail("channel %s holds %v (map %d, heap %d); want %v", c.name, order, len(hc.pending), len(hc.expiry), want)
	}
	for i, r := range hc.expiry {
		if int(r.index) != i || r.settled {
			m.fail("channel %s: heap entry %d has index %d, settled %v", c.name, i, r.index, r.settled)
		}
	}
}

// qOf reads the model's number of a request from its message.
func qOf(r *request) int {
	var p struct{ Message string }
	raw := r.frame
	if r.unsent != nil {
		raw = r.unsent.params
	} else {
		var msg wire.Message
		json.Unmarshal(raw, &msg)
		raw = msg.Params
	}
	json.Unmarshal(raw, &p)
	n, _ := strconv.Atoi(strings.TrimPrefix(p.Message, "q"))
	return n
}

// checkFrames takes every widget's frames and compares them with what
// the model expects this step.
func (m *model) checkFrames() {
	for _, w := range m.widgets {
		if w.state == "left" {
			continue
		}
		frames, err := w.s.Take(nil)
		var got []string
		for _, f := range frames {
			d := m.describe(w, f)
			got = append(got, d)
			kind := slices.Delete(strings.Fields(d), 1, 2) // by kind, not by request
			m.heard[strings.Join(kind, " ")]++
		}
		want := m.want[w]
		if !m.ordered {
			slices.Sort(got)
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			m.fail("w%d (channel %s, url=%v) got frames %q; want %q", w.n, w.ch.name, w.url, got, want)
		}
		if (w.state == "ended") != (err != nil) || (err != nil && !errors.Is(err, w.err)) {
			m.fail("w%d's session ended with %v; want %v", w.n, err, w.err)
		}
	}
}

// describe reads a frame as the model writes it, learning request ids
// from create frames.
func (m *model) describe(w *mWidget, f []byte) string {
	var msg wire.Message
	if err := json.Unmarshal(f, &msg); err != nil {
		m.fail("w%d got a frame that is not JSON: %s", w.n, f)
	}
	switch msg.Method {
	case wire.MethodElicit:
		id, _ := wire.StringID(msg.ID)
		var p struct{ Message string }
		json.Unmarshal(msg.Params, &p)
		q, err := strconv.Atoi(strings.TrimPrefix(p.Message, "q"))
		if err != nil || q >= len(m.reqs) {
			m.fail("w%d got a create frame for no request the model knows: %s", w.n, f)
		}
		r := m.reqs[q]
		switch {
		case r.id == "":
			if m.byID[id] != nil {
				m.fail("%v and %v share id %q", r, m.byID[id], id)
			}
			r.id = id
			m.byID[id] = r
			if r.settled {
				r.ch.recent[id] = r
			}
		case r.id != id:
			m.fail("%v came with id %q, earlier %q", r, id, r.id)
		}
		if !slices.Contains(w.seen, r) {
			w.seen = append(w.seen, r)
		}
		return "create " + r.String()
	case wire.MethodSettled:
		var p wire.SettledParams
		json.Unmarshal(msg.Params, &p)
		name := p.RequestID
		if r := m.byID[p.RequestID]; r != nil {
			name = r.String()
		}
		if (p.Outcome == wire.OutcomeRejected) != (len(p.Errors) > 0) {
			m.fail("w%d: settled %s with errors %v", w.n, p.Outcome, p.Errors)
		}
		return strings.TrimSpace("settled " + name + " " + p.Outcome + " " + p.Action)
	}
	return "frame " + string(f)
}
