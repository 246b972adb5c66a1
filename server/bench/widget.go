package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// simWidget is a widget without a browser: a coder/websocket client that
// speaks formbridge.v1 (hello, then answers each elicitation/create), so
// the bridge's side of a round trip is measured without a person or a
// renderer in it.
type simWidget struct {
	c *websocket.Conn
}

// readLimit bounds a frame the simulated widget accepts, as the real
// client's does.
const readLimit = wire.MaxFrameBytes

func dialWidget(ctx context.Context, url, token string) (*simWidget, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{wire.Subprotocol}})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(readLimit)
	hello, _ := json.Marshal(wire.HelloParams{
		Token:        token,
		ClientInfo:   wire.Implementation{Name: "bench-widget", Version: "1"},
		Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{Form: &struct{}{}}},
	})
	frame := `{"jsonrpc":"2.0","id":"hello","method":"` + wire.MethodHello + `","params":` + string(hello) + `}`
	if err := c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		c.CloseNow()
		return nil, err
	}
	_, data, err := c.Read(ctx)
	if err != nil {
		c.CloseNow()
		return nil, err
	}
	var m wire.Message
	if err := json.Unmarshal(data, &m); err != nil || m.Error != nil || len(m.Result) == 0 {
		c.CloseNow()
		return nil, fmt.Errorf("hello refused: %s", data)
	}
	return &simWidget{c: c}, nil
}

// dialRaw connects without saying hello: a bare WebSocket client.
func dialRaw(ctx context.Context, url string) (*simWidget, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{wire.Subprotocol}})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(readLimit)
	return &simWidget{c: c}, nil
}

// answerFrame is the widget's response to elicitation/create id: accept,
// with content for benchForm.
func answerFrame(id string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Quote(id) + `,"result":{"action":"accept","content":{"approve":true,"note":"ok"}}}`)
}

// answer reads frames until ctx ends or the connection drops, answering
// each elicitation/create; seen, when set, gets every create frame.
func (w *simWidget) answer(ctx context.Context, seen func(create []byte)) error {
	// A context of its own: each Read arms its timeout with
	// context.AfterFunc, which registers with the context's parent under
	// that parent's lock; shared by a thousand widgets, that lock was
	// where the run's goroutines waited most (the mutex profile).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for {
		_, data, err := w.c.Read(ctx)
		if err != nil {
			return err
		}
		id, ok := createID(data)
		if !ok {
			continue // settled and heartbeat notifications
		}
		if seen != nil {
			seen(data)
		}
		if err := w.c.Write(ctx, websocket.MessageText, answerFrame(id)); err != nil {
			return err
		}
	}
}

// createPrefix is how the hub starts every elicitation/create frame.
var createPrefix = []byte(`{"jsonrpc":"2.0","id":`)

// createID returns the id of an elicitation/create frame. It reads only
// the head of the frame when the frame starts as the hub writes it, so
// the simulated widget costs little of the machine the bridge runs on.
func createID(frame []byte) (string, bool) {
	if rest, ok := bytes.CutPrefix(frame, createPrefix); ok {
		if end := bytes.IndexByte(rest[1:], '"'); len(rest) > 0 && rest[0] == '"' && end >= 0 {
			tail := rest[end+2:]
			if bytes.HasPrefix(tail, []byte(`,"method":"`+wire.MethodElicit+`"`)) {
				return string(rest[1 : end+1]), true
			}
			return "", false
		}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(frame, &m) != nil || m.Method != wire.MethodElicit {
		return "", false
	}
	return wire.StringID(m.ID)
}

func (w *simWidget) close() { w.c.Close(websocket.StatusNormalClosure, "") }

var errNoCreate = errors.New("no elicitation/create frame seen")
