package hub_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// nameForm asks for a name of at least two characters and an optional age.
const nameForm = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","minLength":2},"age":{"type":"integer","minimum":0}},"required":["name"]}}`

const urlRequest = `{"mode":"url","message":"Connect your account","elicitationId":"e-42","url":"https://example.com/connect"}`

var requester = wire.Implementation{Name: "test-server", Title: "Test Server", Version: "1.0"}

func newHub(t testing.TB, opts *hub.Options) *hub.Hub {
	t.Helper()
	h := hub.New(opts)
	t.Cleanup(h.Close)
	return h
}

// widget is a test double for the gateway: it attaches a session and
// reads the frames the hub queues for it.
type widget struct {
	t    testing.TB
	s    *hub.Session
	wake chan struct{}
	buf  [][]byte
	err  error
}

func attach(t testing.TB, h *hub.Hub, channel string, url bool) *widget {
	t.Helper()
	w := &widget{t: t, wake: make(chan struct{}, 1)}
	caps := wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}}}
	if url {
		caps.Elicitation.URL = &struct{}{}
	}
	s, err := h.Attach(channel, &hub.AttachOptions{
		Client:       wire.Implementation{Name: "test-widget"},
		Capabilities: caps,
		Notify: func() {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		t.Fatalf("Attach(%q): %v", channel, err)
	}
	w.s = s
	return w
}

// next returns the next frame, waiting for the hub to queue one. It fails
// the test rather than hang when nothing comes.
func (w *widget) next() wire.Message {
	w.t.Helper()
	raw := w.nextRaw()
	var m wire.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		w.t.Fatalf("frame is not JSON: %v: %s", err, raw)
	}
	return m
}

func (w *widget) nextRaw() []byte {
	w.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for len(w.buf) == 0 {
		w.buf, w.err = w.s.Take(w.buf)
		if len(w.buf) > 0 {
			break
		}
		if w.err != nil {
			w.t.Fatalf("session ended while waiting for a frame: %v", w.err)
		}
		select {
		case <-w.wake:
		case <-deadline.C:
			w.t.Fatal("no frame from the hub")
		}
	}
	f := w.buf[0]
	w.buf = w.buf[1:]
	return f
}

// none asserts that nothing is queued for the widget right now.
func (w *widget) none() {
	w.t.Helper()
	w.buf, w.err = w.s.Take(w.buf)
	if len(w.buf) > 0 {
		w.t.Fatalf("unexpected frame: %s", w.buf[0])
	}
}

// request reads an elicitation/create and returns its id and params.
func (w *widget) request() (string, wire.ElicitParams) {
	w.t.Helper()
	m := w.next()
	if m.Method != wire.MethodElicit {
		w.t.Fatalf("got %q, want %s", m.Method, wire.MethodElicit)
	}
	id, ok := wire.StringID(m.ID)
	if !ok {
		w.t.Fatalf("id %s is not a string", m.ID)
	}
	var p wire.ElicitParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		w.t.Fatal(err)
	}
	return id, p
}

// settled reads a settled notification.
func (w *widget) settled() wire.SettledParams {
	w.t.Helper()
	m := w.next()
	if m.Method != wire.MethodSettled {
		w.t.Fatalf("got %q, want %s", m.Method, wire.MethodSettled)
	}
	var p wire.SettledParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// call is an Elicit running in its own goroutine.
type call struct {
	done chan struct{}
	res  *wire.ElicitResult
	err  error
}

func elicitAsync(ctx context.Context, h *hub.Hub, channel, params string, opts *hub.ElicitOptions) *call {
	c := &call{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.res, c.err = h.Elicit(ctx, channel, requester, json.RawMessage(params), opts)
	}()
	return c
}

func (c *call) wait(t testing.TB) (*wire.ElicitResult, error) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Elicit did not return")
	}
	return c.res, c.err
}
