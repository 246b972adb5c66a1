package api_test

// A model-based test of keyed questions over the HTTP API: a seeded
// random sequence of callers posting with and without an Idempotency-Key
// (the same key with the same body or another, several keys), callers
// leaving, widgets answering, callers withdrawing by key, requests
// expiring and time passing beyond the answers' retention, checked step
// by step against a reference model of docs/PROTOCOL.md's HTTP API
// section. It runs in a testing/synctest bubble, so that each step's
// effects (the handlers' goroutines, expiry and retention timers) are
// complete before the step is checked, minutes pass at once, and a seed
// replays exactly. Calls go to the handler in memory, not over a socket:
// a socket's goroutines are not durably blocked, so synctest could not
// tell when a step is done; a caller leaving is its request's context
// ending, which is what net/http makes of a closed connection.
//
//	API_MODEL_SEEDS=200 go test -race ./server/api -run TestAPIModel   # more seeds
//	API_MODEL_SEED=1234 go test ./server/api -run TestAPIModel -v      # one seed

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/modeltest"
)

const (
	apiModelSteps      = 200
	apiModelMaxPending = 3 // small, so that refusals happen too
	// PROTOCOL.md: "An answer is kept for 15 minutes after the question
	// settled". The model keeps its own number, not the package's.
	apiModelRetention = 15 * time.Minute
	apiModelTimeout   = 20 * time.Minute // the model hub's default (Options.Timeout), for a body without timeoutSeconds
)

var (
	apiModelChannels = []string{"default", "a"}
	apiModelKeys     = []string{"k1", "k2", "k3"}
)

const apiModelForm = `"requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":2}},"required":["name"]}`

// apiModelBodies are what callers post. class names the question a body
// asks: 0 and 3 differ only in spacing, which PROTOCOL.md says does not
// count; 1 differs from 0 only in its timeout, 2 in params and requester.
var apiModelBodies = []struct {
	body    string
	class   int
	timeout time.Duration
}{
	{`{"params":{"message":"ship?",` + apiModelForm + `},"timeoutSeconds":90}`, 0, 90 * time.Second},
	{`{"params":{"message":"ship?",` + apiModelForm + `},"timeoutSeconds":600}`, 1, 600 * time.Second},
	{`{"params":{"message":"refund?",` + apiModelForm + `},"requester":{"name":"bot"}}`, 2, apiModelTimeout},
	{`{"params": {"message": "ship?", ` + apiModelForm + ` }, "timeoutSeconds": 90}`, 0, 90 * time.Second},
}

func TestAPIModel(t *testing.T) {
	// Each's bubble fails if a handler or timer goroutine is left
	// blocked at the end: nothing may leak.
	modeltest.Each(t, "API_MODEL", runAPIModel)
}

// mQuestion is one question the hub holds (or held) for the model.
type mQuestion struct {
	n         int
	ch, key   string // key "" for a call without one
	class     int
	id        string // learned from the widget's create frame
	deadline  time.Time
	settled   bool
	res       wire.ElicitResult
	withdrawn bool      // by DELETE with its key
	expires   time.Time // when a keyed question's outcome is forgotten
}

func (q *mQuestion) String() string { return "q" + strconv.Itoa(q.n) }

// mCall is one HTTP call and what the model says it must get.
type mCall struct {
	n      int
	what   string
	q      *mQuestion // the question it waits for; nil when answered at once
	cancel context.CancelFunc
	rec    *recorder
	done   chan struct{} // closed when the handler returned

	answered bool // the model says the handler has returned
	checked  bool
	left     bool // its caller left: nothing may be written
	status   int
	code     string // an error body's code
	body     string // a 200's exact body
	replayed bool   // Idempotent-Replayed: true
}

func (c *mCall) String() string { return "call " + strconv.Itoa(c.n) + " (" + c.what + ")" }

// recorder is a ResponseWriter that keeps what a handler wrote.
type recorder struct {
	mu     sync.Mutex
	header http.Header
	status int // 0 while nothing was written
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

type apiModel struct {
	t              *testing.T
	*modeltest.Log // the seed, and the steps taken
	rng            *rand.Rand
	h              *hub.Hub
	handler        http.Handler
	widgets        map[string]*hub.Session
	qs             []*mQuestion
	byID           map[string]*mQuestion
	keyed          map[[2]string]*mQuestion // by channel and key: pending or kept
	calls          []*mCall
	want           map[string][]string // frames each channel's widget should get this step
	fresh          *mQuestion          // asked this step: its create frame names it
	heard          map[string]int      // responses by kind over the run, to show what it exercised
}

func runAPIModel(t *testing.T, log *modeltest.Log) {
	m := &apiModel{
		t:       t,
		Log:     log,
		rng:     rand.New(rand.NewPCG(log.Seed, 0x6b65796564)),
		widgets: map[string]*hub.Session{},
		byID:    map[string]*mQuestion{},
		keyed:   map[[2]string]*mQuestion{},
		heard:   map[string]int{},
	}
	m.h = hub.New(&hub.Options{Timeout: apiModelTimeout, MaxPending: apiModelMaxPending, RatePerMinute: 1 << 20})
	defer m.h.Close() // a failed step must not leave handlers blocked in the bubble
	m.handler = api.New(m.h, &api.Options{APIKey: apiKey})
	for _, name := range apiModelChannels {
		if name != "default" {
			if _, err := m.h.CreateChannel(name); err != nil {
				t.Fatal(err)
			}
		}
		s, err := m.h.Attach(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.widgets[name] = s
	}
	for range apiModelSteps {
		m.step()
	}
	m.finish()
	t.Logf("%d questions, %d calls; responses: %v", len(m.qs), len(m.calls), m.heard)
}

// step picks one operation and applies it.
func (m *apiModel) step() {
	ch := apiModelChannels[m.rng.IntN(len(apiModelChannels))]
	key := apiModelKeys[m.rng.IntN(len(apiModelKeys))]
	switch k := m.rng.IntN(100); {
	case k < 35:
		if m.rng.IntN(5) < 2 {
			key = ""
		}
		v := m.rng.IntN(len(apiModelBodies))
		m.do(fmt.Sprintf("POST %s key=%q body=%d", ch, key, v), func() { m.post(ch, key, v) })
	case k < 55:
		if q := m.pickPending(); q != nil {
			accept := m.rng.IntN(3) > 0
			m.do(fmt.Sprintf("widget answers %v accept=%v", q, accept), func() { m.answer(q, accept) })
		}
	case k < 67:
		if c := m.pickOpen(); c != nil {
			m.do(fmt.Sprintf("%v: its caller leaves", c), func() { m.leave(c) })
		}
	case k < 77:
		m.do(fmt.Sprintf("DELETE %s key=%q", ch, key), func() { m.withdraw(ch, key) })
	default:
		d := []time.Duration{time.Second, 30 * time.Second, 2 * time.Minute, 5 * time.Minute, 16 * time.Minute}[m.rng.IntN(5)]
		m.do(fmt.Sprintf("sleep %v", d), func() { m.sleep(d) })
	}
}

// do runs op, lets every goroutine of the bubble it started finish, and
// checks the API against the model.
func (m *apiModel) do(name string, op func()) {
	m.t.Helper()
	m.Step(name)
	m.want = map[string][]string{}
	m.fresh = nil
	op()
	synctest.Wait()
	m.check()
}

func (m *apiModel) pickPending() *mQuestion {
	return modeltest.Pick(m.rng, m.qs, func(q *mQuestion) bool { return !q.settled })
}

func (m *apiModel) pickOpen() *mCall {
	return modeltest.Pick(m.rng, m.calls, func(c *mCall) bool { return !c.answered })
}

// finish lets every caller leave and time pass beyond every timeout and
// retention: then nothing may be pending or kept.
func (m *apiModel) finish() {
	for _, c := range m.calls {
		if !c.answered {
			m.do(fmt.Sprintf("%v: its caller leaves", c), func() { m.leave(c) })
		}
	}
	m.do("sleep past everything", func() { m.sleep(apiModelTimeout + apiModelRetention + time.Hour) })
	for _, q := range m.qs {
		if !q.settled {
			m.Fatalf("%v still pending in the model at the end", q)
		}
	}
	// A key forgotten is one no question is pending or kept under: its
	// DELETE is a 404 (and the model checks each step's Status).
	for _, ch := range apiModelChannels {
		for _, key := range apiModelKeys {
			m.do(fmt.Sprintf("DELETE %s key=%q at the end", ch, key), func() { m.withdraw(ch, key) })
		}
	}
	for _, s := range m.widgets {
		s.Close()
	}
}
