package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// testWidget plays the widget over a real WebSocket, as a browser would.
type testWidget struct {
	t    *testing.T
	conn *websocket.Conn
}

// dialWidget connects to the bridge at base (http://host:port) and says hello.
func dialWidget(t *testing.T, base, token string) *testWidget {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+wire.Path,
		&websocket.DialOptions{Subprotocols: []string{wire.Subprotocol}})
	if err != nil {
		t.Fatalf("dial widget: %v", err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	w := &testWidget{t: t, conn: conn}
	hello, _ := wire.NewRequest("hello-1", wire.MethodHello, wire.HelloParams{
		Token:        token,
		ClientInfo:   wire.Implementation{Name: "test-widget"},
		Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}}},
	})
	w.send(hello)
	if m := w.next(func(m *wire.Message) bool { return m.IsResponse() }); m.Error != nil {
		t.Fatalf("hello refused: %v", m.Error)
	}
	return w
}

func (w *testWidget) send(m *wire.Message) {
	w.t.Helper()
	b, _ := json.Marshal(m)
	if err := w.conn.Write(context.Background(), websocket.MessageText, b); err != nil {
		w.t.Fatalf("widget write: %v", err)
	}
}

// next reads frames until one matches, skipping heartbeats and the like.
func (w *testWidget) next(match func(*wire.Message) bool) *wire.Message {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, b, err := w.conn.Read(ctx)
		if err != nil {
			w.t.Fatalf("widget read: %v", err)
		}
		var m wire.Message
		if err := json.Unmarshal(b, &m); err != nil {
			w.t.Fatalf("widget got a bad frame %q: %v", b, err)
		}
		if match(&m) {
			return &m
		}
	}
}

func method(name string) func(*wire.Message) bool {
	return func(m *wire.Message) bool { return m.Method == name }
}

// question waits for the next elicitation/create.
func (w *testWidget) question() (*wire.Message, wire.ElicitParams) {
	w.t.Helper()
	m := w.next(method(wire.MethodElicit))
	var p wire.ElicitParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		w.t.Fatalf("elicitation params: %v", err)
	}
	return m, p
}

func (w *testWidget) answer(q *wire.Message, res wire.ElicitResult) {
	w.t.Helper()
	m, err := wire.NewResult(q.ID, res)
	if err != nil {
		w.t.Fatal(err)
	}
	w.send(m)
}
