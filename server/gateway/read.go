package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// maxErrorsLogged is how many of a connection's error responses are
// logged at info level; the rest go to debug.
const maxErrorsLogged = 3

// readLoop handles the widget's frames after hello until the connection
// ends. Malformed frames get a JSON-RPC error; MaxBadFrames of them
// close the connection.
func (c *conn) readLoop(ctx context.Context) {
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				// coder/websocket has closed it with 1009. The request the
				// frame answered stays pending; no widget of ours sends one.
				c.g.log.Warn("widget dropped: a frame over the size limit", "remote", c.remote, "channel", c.sess.Channel(), "limit", wire.MaxAnswerBytes)
			}
			return // closed
		}
		if typ != websocket.MessageText {
			c.fail(nil, wire.CodeInvalidRequest, "frames must be text (JSON-RPC 2.0)")
		} else {
			c.handle(data)
		}
		if c.bad >= MaxBadFrames {
			c.g.log.Info("widget dropped: too many bad frames", "remote", c.remote, "channel", c.sess.Channel())
			c.ws.Close(websocket.StatusPolicyViolation, "too many malformed frames")
			return
		}
	}
}

// handle acts on one text frame.
func (c *conn) handle(data []byte) {
	var m wire.Message
	if err := json.Unmarshal(data, &m); err != nil {
		c.fail(nil, wire.CodeParseError, "parse error: the frame is not a JSON object")
		return
	}
	if m.JSONRPC != wire.Version {
		c.fail(m.ID, wire.CodeInvalidRequest, `jsonrpc must be "2.0"`)
		return
	}
	switch {
	case m.IsResponse():
		c.answer(&m)
	case m.IsRequest() && m.Method == wire.MethodHello:
		c.fail(m.ID, wire.CodeInvalidRequest, "hello was already answered on this connection")
	case m.IsRequest():
		// Not counted as a bad frame: a well-formed request for a method
		// this bridge does not serve is how a newer widget learns what an
		// older bridge lacks, and -32601 is its answer (a notification
		// it does not know costs nothing either).
		c.send(wire.NewError(m.ID, wire.CodeMethodNotFound, "method not found: "+short(m.Method), nil))
	case m.IsNotification():
		// JSON-RPC never answers a notification; none is defined
		// from widget to bridge, so there is nothing to do.
	default:
		c.fail(m.ID, wire.CodeInvalidRequest, "not a JSON-RPC request, notification or response")
	}
}

// answer hands the widget's response to an elicitation/create to the hub.
func (c *conn) answer(m *wire.Message) {
	id, ok := wire.StringID(m.ID)
	if !ok {
		c.fail(m.ID, wire.CodeInvalidRequest, "the id must be the string the bridge sent")
		return
	}
	if m.Error != nil {
		// The widget could not show the request (a mode it does not
		// render, say). It stays pending for the other widgets. Only the
		// first few are logged as news: a widget can send any number.
		level := slog.LevelInfo
		if c.errorsSeen++; c.errorsSeen > maxErrorsLogged {
			level = slog.LevelDebug
		}
		c.g.log.Log(context.Background(), level, "widget returned an error for a request", "remote", c.remote, "id", short(id), "code", m.Error.Code)
		return
	}
	// Members besides action and content (MCP's _meta, or what a newer
	// widget or MCP revision adds) are ignored, not refused: a widget
	// newer than this bridge must still be able to answer. Only action
	// and content are read, and only they go on to the server.
	var res wire.ElicitResult
	if len(m.Result) == 0 || json.Unmarshal(m.Result, &res) != nil {
		c.fail(m.ID, wire.CodeInvalidParams, `the result must be {"action": "accept"|"decline"|"cancel", "content"?: {...}}`)
		return
	}
	var werr *wire.Error
	switch err := c.sess.Answer(id, res); {
	case err == nil:
	case errors.Is(err, hub.ErrUnknownRequest):
		// Not abuse: a widget retrying after a bridge restart does this.
		// The error answers the response; the settled notice is what a
		// widget acts on to withdraw the form, as for any other outcome.
		c.send(wire.NewError(m.ID, wire.CodeUnknownRequest, "no pending request has this id", nil))
		c.notifySettled(id, hub.OutcomeUnknown)
	case errors.As(err, &werr):
		c.fail(m.ID, werr.Code, werr.Message)
	}
}

// notifySettled sends a settled notification now, outside the hub's
// queue: for a request the hub does not hold, nothing queued concerns it.
func (c *conn) notifySettled(id, outcome string) {
	m, err := wire.NewNotification(wire.MethodSettled, wire.SettledParams{RequestID: id, Outcome: outcome})
	if err == nil {
		c.send(m)
	}
}

// fail answers a bad frame with a JSON-RPC error and counts it.
func (c *conn) fail(id json.RawMessage, code int, message string) {
	c.bad++
	c.send(wire.NewError(id, code, message, nil))
}
