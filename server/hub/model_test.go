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
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/leakcheck"
	"github.com/formbridge/formbridge/server/internal/modeltest"
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
	before := leakcheck.Take()
	runs := modeltest.Each(t, "HUB_MODEL", runModel)
	// synctest.Test already fails if a goroutine of the bubble is left
	// blocked; this catches any that escaped it.
	after := leakcheck.After(before)
	leakcheck.Check(t, "model runs", runs, before, after, leakcheck.Limits{Heap: 64 << 20, Goroutines: 2, Files: 2}, "")
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
	t              *testing.T
	*modeltest.Log // the seed, and the steps taken
	rng            *rand.Rand
	h              *Hub
	closed         bool
	chans          map[string]*mChan
	widgets        []*mWidget
	reqs           []*mReq
	byID           map[string]*mReq
	heard          map[string]int        // frames by kind over the run, to show what it exercised
	want           map[*mWidget][]string // frames each widget should get this step
	ordered        bool                  // compare this step's frames in order (a backlog)
}

func runModel(t *testing.T, log *modeltest.Log) {
	m := &model{
		t:     t,
		Log:   log,
		rng:   rand.New(rand.NewPCG(log.Seed, 0x6d6f64656c)),
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
			m.Fatalf("%v still pending in the model after Close", r)
		}
	}
	if held := m.h.held.Load(); held != 0 {
		m.Fatalf("held %d bytes after Close", held)
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
		if r := modeltest.Pick(m.rng, m.reqs, func(r *mReq) bool { return r.cancel != nil && !r.refused }); r != nil {
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
	m.Step(name)
	m.want = map[*mWidget][]string{}
	m.ordered = false
	op()
	synctest.Wait()
	m.check()
}

func (m *model) pickWidget(attachedOnly bool) *mWidget {
	return modeltest.Pick(m.rng, m.widgets, func(w *mWidget) bool { return !attachedOnly || w.state == "attached" })
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
