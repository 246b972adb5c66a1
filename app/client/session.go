package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// dialTimeout bounds connecting and the WebSocket handshake.
const dialTimeout = 15 * time.Second

// readLimit is the largest frame accepted from the bridge. Elicitations
// are small, but a schema with long descriptions and many options, with
// the bridge's reading of it, can pass coder/websocket's 32 KiB default.
const readLimit = wire.MaxFrameBytes

// helloID is the JSON-RPC id of the hello request; the bridge only ever
// sends string ids of its own, so it cannot collide with a response to us.
const helloID = `"hello"`

// withTimeout is context.WithTimeout made of WithCancel and a timer (its
// Err is Canceled, which nothing here tells apart): the widget's wasm then
// carries none of context's deadline, AfterFunc and WithoutCancel types:
// 28 KB of wasm that nothing else in it needs.
func withTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	t := time.AfterFunc(d, cancel)
	return ctx, func() { t.Stop(); cancel() }
}

// session runs one connection: dial, hello, then the read loop until the
// connection ends. online reports whether the hello succeeded.
func (c *Client) session(ctx context.Context) (online bool, err error) {
	dctx, cancel := withTimeout(ctx, dialTimeout)
	conn, greeted, heard, err := c.connect(dctx)
	cancel()
	if errors.Is(err, ErrUnauthorized) {
		return false, err // the page's early connection was refused
	}
	if err != nil {
		return false, fmt.Errorf("failed to connect to the bridge: %w", err)
	}
	// A browser throws at any close code but 1000 and 3000-4999, leaving
	// the socket open, and a close waits for the bridge's close frame,
	// which a dead connection never sends (Chromium waits 60 s). So every
	// close here is a 1000, and the one that ends a session runs off this
	// goroutine.
	defer func() { go conn.Close(websocket.StatusNormalClosure, "") }()
	conn.SetReadLimit(readLimit)

	// The browser cannot send or see WebSocket pings, so a dead connection
	// is noticed by the bridge's heartbeat going quiet: the read is
	// cancelled, which returns at once in the browser too, and the session
	// ends. The widget closing says so to the bridge with a close frame.
	rctx, stopReading := context.WithCancel(context.Background())
	defer stopReading()
	lapsed := time.AfterFunc(wire.HeartbeatTimeout, stopReading)
	defer lapsed.Stop()
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		select {
		case <-ctx.Done():
			conn.Close(websocket.StatusNormalClosure, "widget closed")
		case <-ended:
		}
	}()

	if !greeted {
		if err := conn.Write(ctx, websocket.MessageText, helloFrame(c.opts.Token, c.opts.ClientInfo)); err != nil {
			return false, fmt.Errorf("failed to send hello: %w", err)
		}
	}

	// backlog counts the requests hello announced that have yet to come;
	// held lists those delivered.
	backlog, held := 0, []string(nil)
	for {
		typ, data, err := conn.Read(rctx)
		if err != nil {
			return online, fmt.Errorf("connection to the bridge lost: %w", err)
		}
		lapsed.Reset(wire.HeartbeatTimeout)
		if typ != websocket.MessageText {
			continue
		}
		var msg wire.Message
		if err := json.Unmarshal(data, &msg); err != nil {
			continue // not JSON-RPC: nothing to answer to
		}
		switch {
		case msg.IsResponse() && string(msg.ID) == helloID:
			if msg.Error != nil {
				if err := tokenRefused(msg.Error); err != nil {
					return false, err
				}
				return false, fmt.Errorf("hello failed: %w", msg.Error)
			}
			var res wire.HelloResult
			if err := json.Unmarshal(msg.Result, &res); err != nil {
				return false, fmt.Errorf("failed to decode hello result: %w", err)
			}
			online = true
			c.setConn(conn)
			c.setState(StateOnline)
			if heard.IsZero() {
				heard = time.Now()
			}
			c.emit(Event{Hello: &res, HelloAt: heard})
			backlog, held = res.Pending, nil
			if backlog <= 0 {
				c.emit(Event{Synced: &Synced{}})
			}
		case msg.IsRequest():
			id := c.handleRequest(ctx, conn, &msg)
			if backlog > 0 && msg.Method == wire.MethodElicit {
				if id != "" {
					held = append(held, id)
				}
				if backlog--; backlog == 0 {
					c.emit(Event{Synced: &Synced{IDs: held}})
					held = nil
				}
			}
		case msg.IsResponse():
			// The only responses besides hello's are errors about an
			// answer; -32003 means its request is gone for good, any
			// other that the bridge did not take the answer.
			if id, ok := wire.StringID(msg.ID); ok && id != "" && msg.Error != nil {
				if msg.Error.Code == wire.CodeUnknownRequest {
					c.emit(Event{Gone: id})
				} else {
					c.emit(Event{AnswerRefused: id})
				}
			}
		case msg.IsNotification():
			c.handleNotification(&msg)
		}
	}
}

// handleRequest delivers an elicitation/create, or answers what the widget
// cannot handle with a JSON-RPC error so the bridge is not left waiting.
// It returns the id delivered, "" when it refused the frame.
func (c *Client) handleRequest(ctx context.Context, conn *websocket.Conn, msg *wire.Message) string {
	reply := func(code int, message string) {
		writeMessage(ctx, conn, wire.NewError(msg.ID, code, message, nil))
	}
	if msg.Method != wire.MethodElicit {
		reply(wire.CodeMethodNotFound, "method not found: "+msg.Method)
		return ""
	}
	// The UI keys requests by id, and reads "" as none.
	id, ok := wire.StringID(msg.ID)
	if !ok || id == "" {
		reply(wire.CodeInvalidRequest, "request id must be a non-empty string")
		return ""
	}
	var p wire.ElicitParams
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		reply(wire.CodeInvalidParams, "invalid elicitation params: "+err.Error())
		return ""
	}
	switch p.Mode {
	case "", wire.ModeForm, wire.ModeURL:
	default:
		// MCP: a client answers a mode it did not declare with -32602.
		reply(wire.CodeInvalidParams, "unsupported elicitation mode: "+p.Mode)
		return ""
	}
	meta, _ := p.RequestMeta()
	c.emit(Event{Request: &Request{ID: id, Params: p, Meta: meta}})
	return id
}

func (c *Client) handleNotification(msg *wire.Message) {
	switch msg.Method {
	case wire.MethodSettled:
		var p wire.SettledParams
		if json.Unmarshal(msg.Params, &p) == nil && p.RequestID != "" {
			c.emit(Event{Settled: &p})
		}
	case wire.MethodComplete:
		var p wire.CompleteParams
		if json.Unmarshal(msg.Params, &p) == nil && p.ElicitationID != "" {
			c.emit(Event{Complete: &p})
		}
	}
	// Heartbeats (and notifications from newer bridges) only reset the
	// heartbeat timer, done for every frame.
}
