package gateway

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/ratelog"
)

// conn is one widget connection. One goroutine reads; a writer
// goroutine runs only while the session has frames queued.
type conn struct {
	g      *gateway
	ws     *websocket.Conn
	cork   *corkWriter
	remote string
	sess   *hub.Session // set before ready

	ready   atomic.Bool // hello answered: the writer may run
	writing atomic.Bool // a writer goroutine is running
	ended   atomic.Bool // the connection is over: no more heartbeats
	hb      *time.Timer
	waiting *list.Element // in the gateway's lobby; guarded by its lock

	// Read goroutine only: malformed frames so far, and error responses
	// so far (see maxErrorsLogged).
	bad, errorsSeen int
}

// serve runs the hello, then hands the connection to a fresh goroutine
// for the rest of its life: the hello (JSON, the hub) grows a stack to
// 8 KiB, while a new goroutine blocked in a read keeps 4 KiB. With
// thousands of idle widgets, that is a third of what each costs.
func (c *conn) serve(ctx context.Context) {
	c.ws.SetReadLimit(ReadLimit)
	if !c.hello(ctx) {
		c.ws.CloseNow()
		return
	}
	c.ws.SetReadLimit(wire.MaxAnswerBytes)
	go c.read(ctx)
}

// read handles the widget's frames until the connection ends.
func (c *conn) read(ctx context.Context) {
	defer c.ws.CloseNow()
	defer func() {
		c.ended.Store(true)
		c.hb.Stop()
		c.sess.Close()
	}()
	c.readLoop(ctx)
}

// hello reads and checks the first frame, attaches the widget and
// answers. On any failure it has closed the connection.
func (c *conn) hello(ctx context.Context) bool {
	// A timer rather than a read deadline: cancelling a read's context
	// drops the connection without the -32001 error and close frame.
	refused := make(chan struct{})
	timer := time.AfterFunc(c.g.helloTimeout, func() {
		defer close(refused)
		// Out of the lobby first: refusing waits for the close
		// handshake, and a connection pushed out meanwhile would make
		// the newcomer wait for it too.
		c.g.lobby.leave(c)
		c.g.refusals.Log(c.g.log, slog.LevelInfo, "widget refused: no hello in time", "remote", c.remote)
		c.refuse(nil, "no formbridge/hello within 10 seconds")
	})
	typ, data, err := c.ws.Read(ctx)
	c.g.lobby.leave(c) // said something, or gone
	if !timer.Stop() {
		// Too late, even if a hello has just come: the refusal is being
		// sent. serve closes the connection once this returns, which
		// would cut the refusal off and leave a bare end.
		<-refused
		return false
	}
	if err != nil {
		return false
	}
	var m wire.Message
	// Checked as readLoop checks every later frame: a hello is a
	// JSON-RPC 2.0 request like any other.
	if typ != websocket.MessageText || json.Unmarshal(data, &m) != nil || m.JSONRPC != wire.Version || !m.IsRequest() || m.Method != wire.MethodHello {
		c.g.refusals.Log(c.g.log, slog.LevelInfo, "widget refused: first frame is not hello", "remote", c.remote)
		c.refuse(m.ID, "the first frame must be a formbridge/hello request")
		return false
	}
	var p wire.HelloParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.g.refusals.Log(c.g.log, slog.LevelInfo, "widget refused: malformed hello", "remote", c.remote)
		c.refuse(m.ID, "hello params must be {token, clientInfo, capabilities}")
		return false
	}
	channel, ok := c.g.h.Authenticate(p.Token)
	if !ok {
		// Never log the token, not even a wrong one: it may be a real
		// token of another channel, or one mistyped by a character.
		c.g.refusals.Log(c.g.log, slog.LevelInfo, "widget refused: unknown token", "remote", c.remote, "client", short(p.ClientInfo.Name))
		c.refuse(m.ID, "unauthorized: unknown token")
		return false
	}
	sess, err := c.g.h.Attach(channel, &hub.AttachOptions{
		Token:        p.Token,
		Client:       p.ClientInfo,
		Capabilities: p.Capabilities,
		Notify:       c.kick,
	})
	if err != nil {
		c.g.log.Info("widget refused", "remote", c.remote, "channel", channel, "err", err)
		// Only a refused token is -32001: the widget stops retrying on it.
		code, status := wire.CodeUnauthorized, websocket.StatusPolicyViolation
		switch {
		case errors.Is(err, hub.ErrTooManyWidgets):
			code, status = wire.CodeTooManyPending, websocket.StatusTryAgainLater
		case errors.Is(err, hub.ErrClosed):
			code, status = wire.CodeInternalError, websocket.StatusGoingAway
		}
		c.send(wire.NewError(m.ID, code, err.Error(), nil))
		c.ws.Close(status, err.Error())
		return false
	}
	c.sess = sess
	res, err := wire.NewResult(m.ID, wire.HelloResult{Channel: channel, ServerInfo: c.g.h.ServerInfo(), Pending: sess.Backlog(), Time: time.Now().UTC()})
	if err != nil || c.send(res) != nil {
		sess.Close()
		return false
	}
	c.g.log.Info("widget connected", "remote", c.remote, "channel", channel,
		"client", short(p.ClientInfo.Name), "version", short(p.ClientInfo.Version), "pending", sess.Backlog())
	c.ready.Store(true)
	c.kick()
	// Armed after the assignment, so beat never sees c.hb unset.
	c.hb = time.AfterFunc(time.Hour, c.beat)
	c.hb.Reset(c.g.heartbeat)
	return true
}

// refuse answers -32001 and closes with 1008 (policy violation), which the
// widget reads as "stop retrying with this token".
func (c *conn) refuse(id json.RawMessage, message string) {
	c.send(wire.NewError(id, wire.CodeUnauthorized, message, nil))
	c.ws.Close(websocket.StatusPolicyViolation, "unauthorized")
}

// send writes one message now. Writes are safe from any goroutine.
func (c *conn) send(m *wire.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return c.write(b)
}

func (c *conn) write(frame []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	return c.writeCtx(ctx, frame)
}

func (c *conn) writeCtx(ctx context.Context, frame []byte) error {
	return c.ws.Write(ctx, websocket.MessageText, frame)
}

// kick starts the writer if frames wait and none runs. It is the hub's
// Notify: called with hub locks held, it must not block.
func (c *conn) kick() {
	if !c.ready.Load() {
		return
	}
	if c.writing.CompareAndSwap(false, true) {
		go c.drain()
		return
	}
	// The writer is busy, perhaps blocked on a peer that stopped reading.
	// If that filled the queue, do not wait for the write to time out.
	if errors.Is(c.sess.Err(), hub.ErrSlowWidget) {
		go c.ws.CloseNow()
	}
}

// drain writes queued frames until the queue is empty, then exits. The
// frames are shared with other widgets and only read here.
func (c *conn) drain() {
	var batch [][]byte
	var err error
	for {
		batch, err = c.sess.Take(batch[:0])
		if !c.writeBatch(batch) {
			c.ws.CloseNow() // the reader sees it and detaches the session
			return
		}
		if werr := c.cork.uncork(); werr != nil {
			c.ws.CloseNow()
			return
		}
		clear(batch)
		if err != nil {
			c.end(err)
			return
		}
		c.writing.Store(false)
		// A frame queued between Take and Store found writing set and
		// did not start a writer: look again.
		if !c.sess.Queued() || !c.writing.CompareAndSwap(false, true) {
			return
		}
	}
}

// writeBatch writes frames corked, so that they go out in one system
// call when the caller uncorks. It reports whether all were framed.
//
// The frames are written with a context that never ends: corked, they
// only reach the cork's buffer, and the cork bounds its own writes to
// the network with WriteTimeout. (A context with a deadline would cost
// coder/websocket a context.AfterFunc for every frame.)
func (c *conn) writeBatch(batch [][]byte) bool {
	if len(batch) == 0 {
		return true
	}
	c.cork.cork()
	for _, f := range batch {
		if c.writeCtx(context.Background(), f) != nil {
			c.cork.uncork()
			return false
		}
	}
	return true
}

// end closes the connection because the hub ended the session.
// (The hub logs a widget cut off for a full queue.)
func (c *conn) end(reason error) {
	c.ws.Close(closeStatus(reason), reason.Error())
}

// closeStatus maps why a session ended to a close code the widget acts on:
// 1001 and 1013 mean "reconnect later", 1008 means "this token is done".
func closeStatus(reason error) websocket.StatusCode {
	switch {
	case errors.Is(reason, hub.ErrClosed):
		return websocket.StatusGoingAway
	case errors.Is(reason, hub.ErrSlowWidget):
		return websocket.StatusTryAgainLater
	case errors.Is(reason, hub.ErrChannelDeleted), errors.Is(reason, hub.ErrNoChannel):
		return websocket.StatusPolicyViolation
	}
	return websocket.StatusNormalClosure
}

// beat sends the heartbeat notification (the browser cannot see pings)
// and a WebSocket ping (for peers that can); a peer that does not pong in
// time is dropped.
func (c *conn) beat() {
	if c.ended.Load() {
		return
	}
	m, _ := wire.NewNotification(wire.MethodHeartbeat, wire.HeartbeatParams{Time: time.Now().UTC().Truncate(time.Second)})
	if c.send(m) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), PongTimeout)
	err := c.ws.Ping(ctx)
	cancel()
	if err != nil {
		c.g.log.Info("widget dropped: no pong", "remote", c.remote)
		c.ws.CloseNow()
		return
	}
	if !c.ended.Load() {
		c.hb.Reset(c.g.heartbeat)
	}
}

// short bounds a string from a widget before it goes into a log.
func short(s string) string { return ratelog.Clip(s, 64) }
