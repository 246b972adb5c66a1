// The fake bridge needs the host build of coder/websocket (a dialer with
// an HTTP client, and Accept), so these tests run on the host only.

//go:build !js

package client

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/formbridge/formbridge/app/wire"
)

// recorder collects the client's events.
type recorder struct{ ch chan Event }

func newRecorder() *recorder { return &recorder{ch: make(chan Event, 100)} }

// runClient runs a client with the token "secret" against url until the
// test ends, recording its events.
func runClient(t *testing.T, url string) (*recorder, *Client) {
	t.Helper()
	rec := newRecorder()
	c := New(Options{URL: url, Token: "secret", ClientInfo: testInfo, OnEvent: rec.on})
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go c.Run(ctx)
	return rec, c
}

func (r *recorder) on(ev Event) { r.ch <- ev }

func (r *recorder) next(t *testing.T) Event {
	t.Helper()
	select {
	case ev := <-r.ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event from the client within 10 s")
		return Event{}
	}
}

var (
	testInfo   = wire.Implementation{Name: "formbridge-widget", Version: "test"}
	bridgeInfo = wire.HelloResult{Channel: "default", ServerInfo: wire.Implementation{Name: "formbridge", Version: "test"}, Pending: 1}
)

func formParams(t *testing.T) wire.ElicitParams {
	meta, err := json.Marshal(wire.RequestMeta{
		Requester: wire.Implementation{Name: "deploy-bot", Title: "Deploy Bot", Version: "1.2.0"},
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		ExpiresAt: time.Date(2026, 1, 2, 3, 14, 5, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	return wire.ElicitParams{
		Message:         "Approve the deploy?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
		Meta:            map[string]json.RawMessage{wire.MetaKey: meta},
	}
}

func TestHelloEventsAndRespond(t *testing.T) {
	params := formParams(t)
	answered := make(chan *wire.Message, 1)
	replies := make(chan *wire.Message, 3)
	closed := make(chan websocket.StatusCode, 1)
	respondNow := make(chan struct{})
	var hello wire.HelloParams

	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		var ok bool
		hello, ok = bc.hello("secret", bridgeInfo)
		if !ok {
			return
		}
		bc.conn.SetReadLimit(wire.MaxAnswerBytes) // as the bridge reads answers
		bc.request("r1", wire.MethodElicit, params)
		bc.notify(wire.MethodHeartbeat, wire.HeartbeatParams{Time: time.Now()})
		bc.notify("notifications/formbridge/future", map[string]any{})
		bc.request("r2", "roots/list", map[string]any{})
		bc.request("r3", wire.MethodElicit, map[string]any{"mode": "carrier-pigeon", "message": "hi"})
		numbered, err := wire.NewRequest("r4", wire.MethodElicit, params)
		if err != nil {
			t.Error(err)
			return
		}
		numbered.ID = json.RawMessage(`4`) // the bridge's ids are strings; this one is not
		bc.send(numbered)
		for range 3 {
			m, err := bc.read()
			if err != nil {
				t.Errorf("reading error replies: %v", err)
				return
			}
			replies <- m
		}
		close(respondNow)
		m, err := bc.read()
		if err != nil {
			t.Errorf("reading the answer: %v", err)
			return
		}
		answered <- m
		bc.notify(wire.MethodSettled, wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnswered})
		bc.notify(wire.MethodComplete, wire.CompleteParams{ElicitationID: "e1"})
		_, err = bc.read()
		closed <- websocket.CloseStatus(err)
	}}
	rec := newRecorder()
	c := New(Options{URL: startBridge(t, b), Token: "secret", ClientInfo: testInfo, OnEvent: rec.on})
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan struct{})
	go func() { defer close(ran); c.Run(ctx) }()

	for _, want := range []State{StateConnecting, StateOnline} {
		if ev := rec.next(t); ev.State != want {
			t.Fatalf("event = %+v, want state %q", ev, want)
		}
	}
	if ev := rec.next(t); ev.Hello == nil || *ev.Hello != bridgeInfo || ev.HelloAt.IsZero() {
		t.Fatalf("event = %+v, want hello %+v, with when it came", ev, bridgeInfo)
	}
	ev := rec.next(t)
	if ev.Request == nil {
		t.Fatalf("event = %+v, want the request", ev)
	}
	wantMeta, _ := params.RequestMeta()
	if diff := cmp.Diff(&Request{ID: "r1", Params: params, Meta: wantMeta}, ev.Request); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	// hello said 1 pending: r1 was all of it.
	if ev := rec.next(t); ev.Synced == nil || !cmp.Equal(ev.Synced.IDs, []string{"r1"}) {
		t.Fatalf("event = %+v, want synced [r1]", ev)
	}

	<-respondNow
	// Read only now: the fake bridge records hello after sending its
	// result, so the Hello event can come first.
	if hello.ClientInfo != testInfo || hello.Capabilities.Elicitation == nil ||
		hello.Capabilities.Elicitation.Form == nil || hello.Capabilities.Elicitation.URL == nil {
		t.Errorf("hello params = %+v, want clientInfo %+v and form+url capabilities", hello, testInfo)
	}
	for _, want := range []struct {
		id   string
		code int
	}{{`"r2"`, wire.CodeMethodNotFound}, {`"r3"`, wire.CodeInvalidParams}, {`4`, wire.CodeInvalidRequest}} {
		m := <-replies
		if string(m.ID) != want.id || m.Error == nil || m.Error.Code != want.code {
			t.Errorf("reply = %+v, want error %d for %s", m, want.code, want.id)
		}
	}
	// An answer the bridge would not read, by a byte, is refused, and not
	// sent: the bridge's next frame is the answer after it, of the very
	// size the bridge reads.
	sized := func(n int) wire.ElicitResult {
		return wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"ok": strings.Repeat("a", n)}}
	}
	empty, err := AnswerFrame("r1", sized(0))
	if err != nil {
		t.Fatal(err)
	}
	fits := wire.MaxAnswerBytes - len(empty)
	if err := c.Respond("r1", sized(fits+1)); !errors.Is(err, ErrAnswerTooLarge) {
		t.Errorf("Respond with a %d-byte answer = %v; want ErrAnswerTooLarge", wire.MaxAnswerBytes+1, err)
	}
	result := sized(fits)
	if err := c.Respond("r1", result); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	m := <-answered
	var got wire.ElicitResult
	if err := json.Unmarshal(m.Result, &got); err != nil || !m.IsResponse() || string(m.ID) != `"r1"` {
		t.Fatalf("answer frame = %s / %+v (%v), want a response to r1", m.ID, m, err)
	}
	if diff := cmp.Diff(result, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if ev := rec.next(t); ev.Settled == nil || !cmp.Equal(*ev.Settled, wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnswered}) {
		t.Errorf("event = %+v, want settled r1 answered", ev)
	}
	if ev := rec.next(t); ev.Complete == nil || ev.Complete.ElicitationID != "e1" {
		t.Errorf("event = %+v, want complete e1", ev)
	}

	cancel()
	if code := <-closed; code != websocket.StatusNormalClosure {
		t.Errorf("bridge saw close status %v, want %v (an explicit close, with a code browsers allow)", code, websocket.StatusNormalClosure)
	}
	<-ran
	select {
	case ev := <-rec.ch:
		t.Errorf("event after the context ended: %+v", ev)
	default:
	}
	if err := c.Respond("r1", result); !errors.Is(err, ErrOffline) {
		t.Errorf("Respond once the connection ended = %v, want ErrOffline", err)
	}
}

// A request past coder/websocket's 32 KiB default frame size, as a
// schema with long descriptions makes, is read and delivered.
func TestLargeRequestDelivered(t *testing.T) {
	params := formParams(t)
	params.Message = strings.Repeat("x", 100<<10)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", bridgeInfo); ok {
			bc.request("r1", wire.MethodElicit, params)
			bc.read()
		}
	}}
	rec, _ := runClient(t, startBridge(t, b))
	for {
		ev := rec.next(t)
		if ev.State == StateOffline {
			t.Fatal("the connection dropped on the large request")
		}
		if ev.Synced != nil {
			if !cmp.Equal(ev.Synced.IDs, []string{"r1"}) {
				t.Errorf("synced %q, want [r1]", ev.Synced.IDs)
			}
			return
		}
	}
}

func TestRefusedTokenIsFatal(t *testing.T) {
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) { bc.hello("secret", bridgeInfo) }}
	rec := newRecorder()
	c := New(Options{URL: startBridge(t, b), Token: "wrong", ClientInfo: testInfo, OnEvent: rec.on})
	ran := make(chan struct{})
	go func() { defer close(ran); c.Run(t.Context()) }()

	// Fatal before offline: a widget (and its host page) learns of the
	// refusal before it would say "offline, retrying".
	if ev := rec.next(t); ev.State != StateConnecting {
		t.Fatalf("event = %+v, want state connecting", ev)
	}
	if ev := rec.next(t); !errors.Is(ev.Fatal, ErrUnauthorized) {
		t.Fatalf("event = %+v, want Fatal wrapping ErrUnauthorized", ev)
	}
	if ev := rec.next(t); ev.State != StateOffline {
		t.Fatalf("event = %+v, want state offline", ev)
	}
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Run kept going after the token was refused")
	}
	if n := len(b.dialTimes()); n != 1 {
		t.Errorf("client connected %d times, want 1 (no retry after a refused token)", n)
	}
	if err := c.Respond("r1", wire.ElicitResult{Action: wire.ActionCancel}); !errors.Is(err, ErrOffline) {
		t.Errorf("Respond after Fatal = %v, want ErrOffline", err)
	}
}

func TestNoURLIsFatal(t *testing.T) {
	rec := newRecorder()
	New(Options{OnEvent: rec.on}).Run(t.Context())
	if ev := rec.next(t); ev.State != StateOffline {
		t.Errorf("event = %+v, want offline", ev)
	}
	if ev := rec.next(t); ev.Fatal == nil {
		t.Errorf("event = %+v, want Fatal", ev)
	}
}

func TestRespondBeforeConnect(t *testing.T) {
	c := New(Options{URL: "ws://127.0.0.1:1/ws"})
	if err := c.Respond("r1", wire.ElicitResult{Action: wire.ActionDecline}); !errors.Is(err, ErrOffline) {
		t.Errorf("Respond = %v, want ErrOffline", err)
	}
}

// An answer that cannot be encoded is an error, not a frame.
func TestAnswerFrameUnencodable(t *testing.T) {
	t.Parallel()
	b, err := AnswerFrame("r1", wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"n": math.NaN()}})
	if err == nil || b != nil {
		t.Errorf("AnswerFrame with NaN = %s, %v; want an error", b, err)
	}
}
