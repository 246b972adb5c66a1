package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
)

func TestHello(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	before := time.Now()
	got := c.hello(token, true)
	// The bridge's clock, for widgets on devices whose clock is off.
	if got.Time.Before(before.Add(-time.Second)) || got.Time.After(time.Now().Add(time.Second)) {
		t.Errorf("hello's time %v; want the bridge's clock, %v", got.Time, before)
	}
	got.Time = time.Time{}
	want := wire.HelloResult{Channel: "default", ServerInfo: wire.Implementation{Name: "formbridge", Version: "test"}, Pending: 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hello result (-want +got):\n%s", diff)
	}
}

// Every failed hello gets -32001 and a 1008 close, whatever went wrong.
func TestHelloRefused(t *testing.T) {
	b := start(t, nil)
	tests := []struct {
		name, frame string
		binary      bool
	}{
		{"wrong token", `{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"nope","clientInfo":{"name":"w"},"capabilities":{}}}`, false},
		{"no token", `{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"clientInfo":{"name":"w"}}}`, false},
		{"token of another case", `{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"WIDGET-TOKEN-FOR-TESTS"}}`, false},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":"` + token + `"}`, false},
		// PROTOCOL.md: every message is JSON-RPC 2.0; later frames that
		// are not get -32600, and a first one is no hello.
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"formbridge/hello","params":{"token":"` + token + `"}}`, false},
		{"no jsonrpc", `{"id":1,"method":"formbridge/hello","params":{"token":"` + token + `"}}`, false},
		{"other method first", `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`, false},
		{"notification", `{"jsonrpc":"2.0","method":"formbridge/hello","params":{"token":"` + token + `"}}`, false},
		{"not JSON", `hello?`, false},
		{"binary", `{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"` + token + `"}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, b)
			typ := websocket.MessageText
			if tt.binary {
				typ = websocket.MessageBinary
			}
			if err := c.c.Write(t.Context(), typ, []byte(tt.frame)); err != nil {
				t.Fatal(err)
			}
			m := c.recv()
			if m.Error == nil || m.Error.Code != wire.CodeUnauthorized {
				t.Fatalf("got %+v; want error -32001", m)
			}
			if got := c.closed(); got != websocket.StatusPolicyViolation {
				t.Errorf("close status %v; want 1008", got)
			}
		})
	}
}

// After hello, a binary frame is not JSON-RPC: -32600, and the
// connection stays.
func TestBinaryFrameAfterHello(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	if err := c.c.Write(t.Context(), websocket.MessageBinary, []byte(`{"jsonrpc":"2.0","id":"x","result":{}}`)); err != nil {
		t.Fatal(err)
	}
	if m := c.recv(); m.Error == nil || m.Error.Code != wire.CodeInvalidRequest {
		t.Fatalf("got %+v; want error -32600", m)
	}
}

func TestHelloTimeout(t *testing.T) {
	b := start(t, &bridgeOptions{hello: 50 * time.Millisecond})
	c := dial(t, b)
	m := c.recv() // sent when the (shortened) hello timeout passes
	if m.Error == nil || m.Error.Code != wire.CodeUnauthorized || !strings.Contains(m.Error.Message, "hello") {
		t.Fatalf("got %+v; want -32001 about hello", m)
	}
	if got := c.closed(); got != websocket.StatusPolicyViolation {
		t.Errorf("close status %v; want 1008", got)
	}
}

// A hello that comes just as its deadline passes gets its answer, or the
// refusal and then close 1008, never a bare end: the refusal was cut off
// by the connection closing under it (seen as a leak test's EOF in CI).
func TestHelloAtDeadline(t *testing.T) {
	b := start(t, &bridgeOptions{hello: 2 * time.Millisecond})
	answered, refused := 0, 0
	for i := range 200 {
		c := dial(t, b)
		time.Sleep(time.Duration(i*20) * time.Microsecond) // 0 to 4 ms
		c.sendHello(token, false)
		raw, err := c.recvRaw()
		if err != nil {
			t.Fatalf("hello %d: %v; want its answer, or -32001", i, err)
		}
		var m wire.Message
		switch {
		case json.Unmarshal(raw, &m) != nil:
			t.Fatalf("hello %d: got %s", i, raw)
		case m.Error != nil && m.Error.Code == wire.CodeUnauthorized:
			refused++
			if got := c.closed(); got != websocket.StatusPolicyViolation {
				t.Fatalf("hello %d: refused, then close status %v; want 1008", i, got)
			}
		case m.Error == nil && string(m.ID) == "1":
			answered++
		default:
			t.Fatalf("hello %d: got %s; want its answer, or -32001", i, raw)
		}
		c.c.CloseNow()
	}
	t.Logf("%d hellos answered, %d refused", answered, refused)
}

// The upgrade is refused before any frame flows: a foreign Origin,
// a missing subprotocol, a token in the URL.
func TestUpgradeRefused(t *testing.T) {
	b := start(t, nil)
	tests := []struct {
		name   string
		url    string
		origin string
		protos []string
		status int // 0 = upgrade succeeds
	}{
		{"foreign origin", b.url, "https://evil.example", []string{wire.Subprotocol}, http.StatusForbidden},
		{"same origin", b.url, strings.Replace(strings.TrimSuffix(b.url, wire.Path), "ws", "http", 1), []string{wire.Subprotocol}, 0},
		{"no origin (not a browser)", b.url, "", []string{wire.Subprotocol}, 0},
		{"no subprotocol", b.url, "", nil, http.StatusBadRequest},
		{"other subprotocol", b.url, "", []string{"formbridge.v0"}, http.StatusBadRequest},
		{"token in the URL", b.url + "?token=" + token, "", []string{wire.Subprotocol}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &websocket.DialOptions{Subprotocols: tt.protos, HTTPHeader: http.Header{}}
			if tt.origin != "" {
				opts.HTTPHeader.Set("Origin", tt.origin)
			}
			_, err := dialWith(t, tt.url, opts)
			var de *dialError
			switch {
			case tt.status == 0 && err != nil:
				t.Fatalf("dial: %v; want it to succeed", err)
			case tt.status != 0 && !errors.As(err, &de):
				t.Fatalf("dial: %v; want HTTP %d", err, tt.status)
			case tt.status != 0 && de.status != tt.status:
				t.Errorf("HTTP %d; want %d", de.status, tt.status)
			}
		})
	}
}

// A browser lists the subprotocols it offers as "a, b": the bridge's is
// found among others, after the space.
func TestSubprotocolAmongOthers(t *testing.T) {
	b := start(t, nil)
	req, err := http.NewRequest(http.MethodGet, strings.Replace(b.url, "ws", "http", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Sec-WebSocket-Protocol", "formbridge.v0, "+wire.Subprotocol)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Protocol") != wire.Subprotocol {
		t.Errorf("HTTP %d with subprotocol %q; want 101 and %s", resp.StatusCode, resp.Header.Get("Sec-WebSocket-Protocol"), wire.Subprotocol)
	}
}

func TestAllowedOrigins(t *testing.T) {
	b := start(t, &bridgeOptions{gateway: gateway.Options{AllowedOrigins: []string{"chat.example.com", "*.corp.example"}}})
	tests := []struct {
		origin string
		ok     bool
	}{
		{"https://chat.example.com", true},
		{"https://team.corp.example", true},
		{"https://chat.example.com.evil.example", false},
		{"https://evil.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			_, err := dialWith(t, b.url, &websocket.DialOptions{
				Subprotocols: []string{wire.Subprotocol},
				HTTPHeader:   http.Header{"Origin": {tt.origin}},
			})
			if (err == nil) != tt.ok {
				t.Errorf("dial err = %v; want allowed %v", err, tt.ok)
			}
		})
	}
}

// A frame over the limit closes the connection with 1009: 64 KiB for the
// hello, wire.MaxAnswerBytes after it.
func TestOversizedFrame(t *testing.T) {
	b := start(t, nil)
	t.Run("hello", func(t *testing.T) {
		c := dial(t, b)
		c.send(`{"jsonrpc":"2.0","id":"hello","method":"formbridge/hello","params":{"token":"` + strings.Repeat("a", 65<<10) + `"}}`)
		if got := c.closed(); got != websocket.StatusMessageTooBig {
			t.Errorf("close status %v; want 1009", got)
		}
	})
	// Past coder/websocket's 32 KiB default, within the hello's 64 KiB.
	t.Run("hello within the limit", func(t *testing.T) {
		c := dial(t, b)
		c.sendJSON(map[string]any{"jsonrpc": "2.0", "id": "hello", "method": wire.MethodHello, "params": map[string]any{
			"token": token, "clientInfo": map[string]any{"name": "test-widget", "version": "1"}, "_meta": map[string]any{"pad": strings.Repeat("a", 60<<10)},
		}})
		if m := c.recv(); m.Error != nil || m.Result == nil {
			t.Errorf("a %d KiB hello got %+v; want it answered", 60, m)
		}
	})
	t.Run("after hello", func(t *testing.T) {
		c := dial(t, b)
		c.hello(token, false)
		c.send(`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("a", wire.MaxAnswerBytes) + `"}`)
		if got := c.closed(); got != websocket.StatusMessageTooBig {
			t.Errorf("close status %v; want 1009", got)
		}
	})
}

// An answer longer than the hello's limit, from a text field with no
// maxLength, reaches the caller (a review found 70 KB of text lost: the
// connection was cut with 1009, and the widget sent it again on every
// reconnect).
func TestLongAnswerSettles(t *testing.T) {
	b := start(t, nil)
	w := dial(t, b)
	w.hello(token, false)
	const form = `{"message":"Describe the incident","requestedSchema":{"type":"object","properties":{"notes":{"type":"string","title":"Notes"}},"required":["notes"]}}`
	call := elicitAsync(context.Background(), b.h, form, nil)
	id, _ := w.request()
	notes := strings.Repeat("a log line of the incident, pasted as it was.\n", 20000) // ~920 KB
	w.answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"notes": notes}})
	res, err := call.wait(t)
	if err != nil || res.Action != wire.ActionAccept || res.Content["notes"] != notes {
		t.Fatalf("the caller got %v, %v; want the %d-byte answer", res.Action, err, len(notes))
	}
	if p := w.settled(); p.RequestID != id || p.Outcome != wire.OutcomeAnswered {
		t.Errorf("settled %+v; want %s answered", p, id)
	}
}

// Each malformed frame gets a JSON-RPC error; too many close the connection.
func TestMalformedFrames(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	tests := []struct {
		name, frame string
		code        int
		id          string
	}{
		{"not JSON", `{"jsonrpc":`, wire.CodeParseError, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":"a","result":{}}`, wire.CodeInvalidRequest, `"a"`},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, wire.CodeMethodNotFound, "7"},
		{"hello twice", `{"jsonrpc":"2.0","id":8,"method":"formbridge/hello","params":{"token":"` + token + `"}}`, wire.CodeInvalidRequest, "8"},
		{"number id answer", `{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}`, wire.CodeInvalidRequest, "9"},
		{"null id answer", `{"jsonrpc":"2.0","id":null,"result":{"action":"accept"}}`, wire.CodeInvalidRequest, "null"}, // null is not a string either
		{"bad action", `{"jsonrpc":"2.0","id":"x","result":{"action":"maybe"}}`, wire.CodeInvalidParams, `"x"`},
		{"content not an object", `{"jsonrpc":"2.0","id":"x","result":{"action":"accept","content":[1]}}`, wire.CodeInvalidParams, `"x"`},
		{"unknown request", `{"jsonrpc":"2.0","id":"nope","result":{"action":"decline"}}`, wire.CodeUnknownRequest, `"nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.send(tt.frame)
			m := c.recv()
			if m.Error == nil || m.Error.Code != tt.code || string(m.ID) != tt.id {
				t.Errorf("got id %s error %+v; want id %s code %d", m.ID, m.Error, tt.id, tt.code)
			}
			if tt.code != wire.CodeUnknownRequest {
				return
			}
			// Then a notice the widget withdraws the stale form on.
			m = c.recv()
			var p wire.SettledParams
			if m.Method != wire.MethodSettled || json.Unmarshal(m.Params, &p) != nil || p.RequestID != "nope" || p.Outcome != hub.OutcomeUnknown {
				t.Errorf("after -32003: %s %s; want settled nope unknown", m.Method, m.Params)
			}
		})
	}
	// A notification is never answered; the ping below proves it.
	c.send(`{"jsonrpc":"2.0","method":"notifications/whatever"}`)
	c.send(`{"jsonrpc":"2.0","method":"x","id":"probe"}`)
	if m := c.recv(); string(m.ID) != `"probe"` {
		t.Errorf("a notification was answered: %+v", m)
	}
	for range 20 {
		if err := c.c.Write(t.Context(), websocket.MessageText, []byte("junk")); err != nil {
			break
		}
	}
	if got := c.closed(); got != websocket.StatusPolicyViolation {
		t.Errorf("close status %v; want 1008 after repeated abuse", got)
	}
}

// The MaxBadFrames-th bad frame closes the connection, not one before:
// answers the hub refused count too, requests for an unknown method not.
func TestBadFramesLimit(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	const refused = `{"jsonrpc":"2.0","id":"x","result":{"action":"maybe"}}`
	for range gateway.MaxBadFrames - 1 {
		c.send(refused)
		if m := c.recv(); m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Fatalf("got %+v; want the hub's -32602", m)
		}
	}
	c.send(`{"jsonrpc":"2.0","method":"x","id":"probe"}`)
	if m := c.recv(); string(m.ID) != `"probe"` {
		t.Fatalf("after %d bad frames: %+v; want the connection open", gateway.MaxBadFrames-1, m)
	}
	c.send(refused)
	c.recv()
	if got := c.closed(); got != websocket.StatusPolicyViolation {
		t.Errorf("close status %v after %d bad frames; want 1008", got, gateway.MaxBadFrames)
	}
}

func TestAnswerOnceAcrossConnections(t *testing.T) {
	b := start(t, nil)
	a, o := dial(t, b), dial(t, b)
	a.hello(token, false)
	o.hello(token, false)
	call := elicitAsync(t.Context(), b.h, nameForm, nil)
	id, _ := a.request()
	if id2, _ := o.request(); id2 != id {
		t.Fatalf("ids %q and %q differ", id, id2)
	}
	want := wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}
	a.answer(id, want)
	if got := a.settled(); got.Outcome != wire.OutcomeAnswered {
		t.Errorf("a heard %q; want answered", got.Outcome)
	}
	o.answer(id, wire.ElicitResult{Action: wire.ActionDecline}) // too late
	res, err := call.wait(t)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	// o hears the settle notice, then the same outcome for its late answer.
	for range 2 {
		if got := o.settled(); got.Outcome != wire.OutcomeAnsweredElsewhere {
			t.Errorf("o heard %q; want answered-elsewhere", got.Outcome)
		}
	}
}

func TestReconnectGetsPending(t *testing.T) {
	b := start(t, nil)
	first := dial(t, b)
	first.hello(token, false)
	call := elicitAsync(t.Context(), b.h, nameForm, nil)
	id, _ := first.request()
	first.c.Close(websocket.StatusGoingAway, "page reloaded")

	again := dial(t, b)
	if got := again.hello(token, false); got.Pending != 1 {
		t.Errorf("hello pending = %d; want 1", got.Pending)
	}
	if id2, p := again.request(); id2 != id || p.Message != "Who are you?" {
		t.Errorf("got %q %q; want the same request %q", id2, p.Message, id)
	}
	again.answer(id, wire.ElicitResult{Action: wire.ActionDecline})
	if res, err := call.wait(t); err != nil || res.Action != wire.ActionDecline {
		t.Errorf("result %+v, %v; want decline", res, err)
	}
}

func TestRejectedAnswerStaysPending(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	call := elicitAsync(t.Context(), b.h, nameForm, nil)
	id, _ := c.request()
	c.answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "A"}})
	got := c.settled()
	if got.Outcome != wire.OutcomeRejected || len(got.Errors) != 1 || got.Errors[0].Field != "name" {
		t.Fatalf("got %+v; want rejected with an error on name", got)
	}
	c.answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}})
	if res, err := call.wait(t); err != nil || res.Content["name"] != "Ada" {
		t.Errorf("result %+v, %v", res, err)
	}
}

func TestExpiryAndCallerCancel(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	expiring := elicitAsync(t.Context(), b.h, nameForm, &hub.ElicitOptions{Timeout: 50 * time.Millisecond})
	c.request()
	if got := c.settled(); got.Outcome != wire.OutcomeExpired {
		t.Errorf("heard %q; want expired", got.Outcome)
	}
	if res, err := expiring.wait(t); err != nil || res.Action != wire.ActionCancel {
		t.Errorf("expired result %+v, %v; want cancel", res, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	leaving := elicitAsync(ctx, b.h, nameForm, nil)
	c.request()
	cancel()
	if got := c.settled(); got.Outcome != wire.OutcomeCancelled {
		t.Errorf("heard %q; want cancelled", got.Outcome)
	}
	if _, err := leaving.wait(t); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}

// Shutdown: pending callers get cancel, widgets hear "cancelled" and
// then a 1001 close (reconnect later).
func TestShutdown(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	call := elicitAsync(t.Context(), b.h, nameForm, nil)
	c.request()
	b.h.Close()
	if res, err := call.wait(t); err != nil || res.Action != wire.ActionCancel {
		t.Errorf("result %+v, %v; want cancel", res, err)
	}
	if got := c.settled(); got.Outcome != wire.OutcomeCancelled {
		t.Errorf("heard %q; want cancelled", got.Outcome)
	}
	if got := c.closed(); got != websocket.StatusGoingAway {
		t.Errorf("close status %v; want 1001", got)
	}
}

func TestTooManyWidgets(t *testing.T) {
	b := start(t, &bridgeOptions{hub: hub.Options{MaxWidgets: 1}})
	dial(t, b).hello(token, false)
	c := dial(t, b)
	c.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": wire.MethodHello, "params": map[string]any{"token": token}})
	if m := c.recv(); m.Error == nil || m.Error.Code != wire.CodeTooManyPending {
		t.Errorf("got %+v; want -32000", m)
	}
	if got := c.closed(); got != websocket.StatusTryAgainLater {
		t.Errorf("close status %v; want 1013", got)
	}
}

func TestHeartbeat(t *testing.T) {
	b := start(t, &bridgeOptions{heartbeat: 20 * time.Millisecond})
	c := dial(t, b)
	c.hello(token, false)
	for range 2 { // the second proves the timer is re-armed after the ping
		if m := c.recv(); m.Method != wire.MethodHeartbeat {
			t.Fatalf("got %+v; want a heartbeat", m)
		}
	}
}

// URL mode goes only to widgets that declared it; complete follows.
func TestURLMode(t *testing.T) {
	b := start(t, nil)
	formOnly, both := dial(t, b), dial(t, b)
	formOnly.hello(token, false)
	both.hello(token, true)
	call := elicitAsync(t.Context(), b.h, `{"mode":"url","message":"Connect","elicitationId":"e-1","url":"https://example.com/c"}`, nil)
	id, p := both.request()
	if p.URL != "https://example.com/c" {
		t.Errorf("url %q", p.URL)
	}
	both.answer(id, wire.ElicitResult{Action: wire.ActionAccept})
	if res, err := call.wait(t); err != nil || res.Action != wire.ActionAccept {
		t.Fatalf("result %+v, %v", res, err)
	}
	both.settled()
	b.h.Complete(hub.DefaultChannel, "e-1")
	if m := both.recv(); m.Method != wire.MethodComplete {
		t.Errorf("got %s; want complete", m.Method)
	}
	// The form-only widget heard nothing of it: its next frame is the
	// answer to this probe.
	formOnly.send(`{"jsonrpc":"2.0","id":"probe","method":"x"}`)
	if m := formOnly.recv(); string(m.ID) != `"probe"` {
		t.Errorf("form-only widget got %+v", m)
	}
}

// A widget that arrives while the bridge shuts down is told to come back
// (1001), not that its token is wrong (which would stop it for good).
func TestHelloDuringShutdown(t *testing.T) {
	b := start(t, nil)
	b.h.Close()
	c := dial(t, b)
	c.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": wire.MethodHello, "params": map[string]any{"token": token}})
	if m := c.recv(); m.Error == nil || m.Error.Code == wire.CodeUnauthorized {
		t.Errorf("got %+v; want an error other than -32001", m)
	}
	if got := c.closed(); got != websocket.StatusGoingAway {
		t.Errorf("close status %v; want 1001", got)
	}
}

// Deleting a channel withdraws its requests and closes its widgets with
// 1008: the token is no good any more.
func TestChannelDeleted(t *testing.T) {
	b := start(t, nil)
	ch, err := b.h.CreateChannel("chat-1")
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, b)
	if got := c.hello(ch.Token, false); got.Channel != "chat-1" {
		t.Fatalf("hello channel %q", got.Channel)
	}
	done := make(chan error, 1)
	go func() {
		res, err := b.h.Elicit(t.Context(), "chat-1", requester, []byte(nameForm), nil)
		if err == nil && res.Action != wire.ActionCancel {
			err = errors.New("result " + res.Action)
		}
		done <- err
	}()
	c.request()
	if err := b.h.DeleteChannel("chat-1"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("caller: %v; want cancel", err)
	}
	if got := c.settled(); got.Outcome != wire.OutcomeCancelled {
		t.Errorf("heard %q; want cancelled", got.Outcome)
	}
	if got := c.closed(); got != websocket.StatusPolicyViolation {
		t.Errorf("close status %v; want 1008", got)
	}
	again := dial(t, b)
	again.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": wire.MethodHello, "params": map[string]any{"token": ch.Token}})
	if m := again.recv(); m.Error == nil || m.Error.Code != wire.CodeUnauthorized {
		t.Errorf("hello with a deleted channel's token: %+v; want -32001", m)
	}
}

// A widget that stops reading is cut off once its queue is full; the
// hub, the callers and the other widgets go on.
func TestSlowWidgetCutOff(t *testing.T) {
	cut := cutOffLog{at: make(chan time.Time, 1)}
	b := start(t, &bridgeOptions{hub: hub.Options{DefaultToken: token, MaxQueue: 4, MaxPending: 200, RatePerMinute: 1000, Logger: slog.New(cut)}})
	stuck, err := dialRaw(b, false) // never reads again
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.conn.Close()
	fast := dial(t, b)
	fast.hello(token, false)

	// About 200 KB per request: send until the stuck widget's socket
	// buffers (a few MB, depending on the kernel), then its queue, fill.
	var props []string
	for i := range 20 {
		props = append(props, fmt.Sprintf(`"f%d":{"type":"string","description":"%s"}`, i, strings.Repeat("x", 9000)))
	}
	big := `{"message":"Big","requestedSchema":{"type":"object","properties":{` + strings.Join(props, ",") + `}}}`
	for i := 0; b.h.Widgets(hub.DefaultChannel) == 2; i++ {
		if i == 1000 {
			t.Fatal("200 MB later, the stuck widget is still attached")
		}
		c := elicitAsync(t.Context(), b.h, big, nil)
		id, _ := fast.request()
		fast.answer(id, wire.ElicitResult{Action: wire.ActionDecline})
		if got := fast.settled(); got.Outcome != wire.OutcomeAnswered {
			t.Fatalf("request %d: fast widget heard %q", i, got.Outcome)
		}
		if res, err := c.wait(t); err != nil || res.Action != wire.ActionDecline {
			t.Fatalf("call %d: %+v, %v", i, res, err)
		}
	}
	// Cut off once its queue is full, not when the write it is stuck in
	// times out. The write got stuck a few requests before the queue
	// filled, so a connection left to its WriteTimeout would go most of
	// a WriteTimeout after the cut-off; cut off, it goes at once. (Timed
	// from the cut-off, not from the first request: filling the socket's
	// buffers takes seconds on a loaded machine.)
	select {
	case at := <-cut.at:
		if took := time.Since(at); took >= gateway.WriteTimeout/2 {
			t.Errorf("the stuck widget was dropped %v after the hub cut it off; want at once, not when its write timed out (%v)", took, gateway.WriteTimeout)
		}
	default:
		t.Error("the stuck widget was dropped, but not for its full queue")
	}
	// Its connection ends (reset or EOF) once what the kernel buffered is read.
	stuck.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, stuck.r); err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		t.Error("the stuck widget's connection is still open")
	}
}

// cutOffLog is a log handler that notes when the hub cut off a widget
// for not keeping up, and drops every record.
type cutOffLog struct{ at chan time.Time }

func (cutOffLog) Enabled(context.Context, slog.Level) bool { return true }
func (l cutOffLog) WithAttrs([]slog.Attr) slog.Handler     { return l }
func (l cutOffLog) WithGroup(string) slog.Handler          { return l }

func (l cutOffLog) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "widget cut off") {
		select {
		case l.at <- r.Time:
		default:
		}
	}
	return nil
}

// Connections that never say hello are bounded, and cannot lock the
// widgets out: past the limit a new connection pushes out the one that
// has waited longest, so a widget that says hello at once gets in while
// silent connections fill every place.
func TestUnauthenticatedBounded(t *testing.T) {
	b := start(t, &bridgeOptions{maxUnauth: 2})
	waiting := func(want int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for gateway.Unauthenticated(b.gw) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections wait for hello; want %d", gateway.Unauthenticated(b.gw), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	// dropped checks c's connection ends at once, without a close frame.
	dropped := func(c *client, which string) {
		t.Helper()
		_, err := c.recvRaw()
		if err == nil || errors.Is(err, context.DeadlineExceeded) || websocket.CloseStatus(err) != -1 {
			t.Errorf("the %s silent connection: %v; want it dropped", which, err)
		}
	}
	oldest := dial(t, b)
	waiting(1)
	silent := dial(t, b)
	waiting(2)
	// A third pushes out the oldest, whose connection ends.
	dial(t, b)
	dropped(oldest, "oldest")
	waiting(2)
	// A widget still gets in, and out of the lobby with its hello.
	w := dial(t, b)
	if res := w.hello(token, false); res.Channel != hub.DefaultChannel {
		t.Fatalf("hello: %+v", res)
	}
	waiting(1)
	// The silent ones are the ones pushed out.
	dropped(silent, "second")
}

// A silent connection being refused (its hello timer fired, and the
// refusal waits for the close handshake) is out of the lobby: a widget
// arriving meanwhile does not wait for that handshake.
func TestRefusalDoesNotHoldUpNewcomer(t *testing.T) {
	b := start(t, &bridgeOptions{maxUnauth: 1, hello: 200 * time.Millisecond})
	dial(t, b) // never reads, so never answers the close
	time.Sleep(400 * time.Millisecond)
	start := time.Now()
	w := dial(t, b)
	w.hello(token, false)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the widget's hello took %v while a silent connection was refused", d)
	}
}
