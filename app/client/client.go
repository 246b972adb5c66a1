// Package client is the widget's side of the formbridge.v1 connection: it
// dials the bridge, says hello with the channel's token, delivers what the
// bridge sends as Events in order, sends the person's answers, and
// reconnects with backoff when the connection drops.
//
// It builds for js/wasm (the browser's WebSocket, through coder/websocket)
// and for the host, where it is tested against a fake bridge.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// State is the connection state, as shown on the widget root
// (data-connection).
type State string

// Connection states.
const (
	StateConnecting State = "connecting"
	StateOnline     State = "online"
	StateOffline    State = "offline"
)

// Options configure a Client.
type Options struct {
	URL        string // ws:// or wss:// URL of the bridge's /ws (see BridgeURL)
	Token      string
	ClientInfo wire.Implementation
	// OnEvent is called from the connection's goroutine, in order.
	// The UI must hand each event to its own goroutine (ctx.Dispatch).
	OnEvent func(Event)
}

// Event is one thing that happened on the connection. Exactly one field is
// set.
type Event struct {
	State State             // set when the connection state changed ("" otherwise)
	Hello *wire.HelloResult // after each successful hello (every (re)connect)
	// HelloAt, with Hello, is when its answer reached the page: the
	// page's early connection may have held it while the wasm loaded.
	HelloAt  time.Time
	Request  *Request            // a pending elicitation (again after a reconnect: dedupe by ID)
	Synced   *Synced             // after each hello, once every request the bridge still holds was sent
	Settled  *wire.SettledParams // a request left the queue, or an answer was rejected
	Complete *wire.CompleteParams
	// Gone is the id of a request the bridge no longer holds: it answered
	// the person's answer with -32003 (it restarted, or forgot a request
	// settled long ago). The answer went nowhere; withdraw the form.
	Gone string
	// AnswerRefused is the id of a request whose answer the bridge
	// answered with any other error: it did not take the answer, and the
	// request waits; the person may send again, or decline.
	AnswerRefused string
	Fatal         error // e.g. the token was refused: the client stops retrying
}

// Synced follows each hello once the bridge has sent every request it
// holds for this widget: hello's pending count of elicitation/create
// frames, which the bridge sends before anything newer. A widget
// withdraws the requests it kept from before the reconnect that are not
// in IDs: they settled while it was away. The client counts the frames
// itself, so one it had to refuse (a malformed request) still counts.
type Synced struct {
	IDs []string // the pending requests delivered as Request events, in order
}

// Request is one elicitation/create as the bridge sent it.
type Request struct {
	ID     string            // the bridge's JSON-RPC id for this elicitation/create
	Params wire.ElicitParams // as the bridge sent them
	Meta   wire.RequestMeta  // Params.RequestMeta(), zero if absent
}

// ErrOffline is returned by Respond when there is no live connection. The
// UI keeps the form so the person can send again once back online.
var ErrOffline = errors.New("not connected to the bridge")

// ErrAnswerTooLarge is returned by Respond for an answer over
// wire.MaxAnswerBytes, which the bridge would not read: nothing is sent.
var ErrAnswerTooLarge = errors.New("the answer is larger than the bridge accepts")

// ErrUnauthorized is wrapped by the Fatal event when the bridge refused
// the token: retrying cannot help, so the client stops.
var ErrUnauthorized = errors.New("the bridge refused the token")

// writeTimeout bounds one answer's write on the host build (browser writes
// never block).
const writeTimeout = 10 * time.Second

// Client is one widget's connection to the bridge. Create it with New and
// drive it with Run; Respond may be called from any goroutine.
type Client struct {
	opts Options
	// dial opens the WebSocket when there is no predialed one to take;
	// tests on the host replace it to route the connection through an
	// in-memory network.
	dial func(ctx context.Context, url string) (*websocket.Conn, error)

	mu    sync.Mutex
	conn  *websocket.Conn // nil unless the hello succeeded
	state State           // last state reported through OnEvent
	wake  chan struct{}   // closed by Retry; set only while Run waits to reconnect
}

// New returns a Client that does nothing until Run is called.
func New(opts Options) *Client {
	return &Client{opts: opts, dial: dialBridge}
}

// Retry has Run, when it is waiting to reconnect, reconnect now rather
// than at the end of its backoff (up to maxBackoff): the browser says
// the network is back, or the person has come back to the page. Nothing
// otherwise: a Retry while connected must not cut short the backoff of a
// later drop, which keeps widgets dropped together by a bridge restart
// from all coming back at once.
func (c *Client) Retry() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wake != nil {
		close(c.wake)
		c.wake = nil
	}
}

// dialBridge opens the connection. Only Subprotocols is set because it is
// the only dial option the browser build supports; the token travels in
// the hello frame instead of a header.
func dialBridge(ctx context.Context, url string) (*websocket.Conn, error) {
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		Subprotocols: []string{wire.Subprotocol},
	})
	return conn, err
}

// Respond sends the person's result for request id. It fails with
// ErrOffline when the connection is down; the bridge re-sends the request
// after the reconnect, so nothing is lost by keeping the form. It fails
// with ErrAnswerTooLarge, sending nothing, for an answer the bridge
// would not read.
func (c *Client) Respond(id string, result wire.ElicitResult) error {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		return ErrOffline
	}
	b, err := AnswerFrame(id, result)
	if err != nil {
		return err
	}
	if len(b) > wire.MaxAnswerBytes {
		return ErrAnswerTooLarge
	}
	ctx, cancel := withTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("failed to send the answer: %w", err)
	}
	return nil
}

// AnswerFrame is the frame Respond sends for request id. The widget's
// warm-up encodes one for its sample too, so that the browser has
// compiled the encoding before a person's first Send.
func AnswerFrame(id string, result wire.ElicitResult) ([]byte, error) {
	idJSON, err := json.Marshal(id)
	if err != nil {
		return nil, fmt.Errorf("failed to encode request id: %w", err)
	}
	msg, err := wire.NewResult(idJSON, result)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the answer: %w", err)
	}
	return b, nil
}

func writeMessage(ctx context.Context, conn *websocket.Conn, msg *wire.Message) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("failed to encode %s frame: %w", msg.Method, err)
	}
	return conn.Write(ctx, websocket.MessageText, b)
}

func (c *Client) emit(ev Event) {
	if c.opts.OnEvent != nil {
		c.opts.OnEvent(ev)
	}
}

// setState reports a state change once; repeated states are not events.
func (c *Client) setState(s State) {
	c.mu.Lock()
	changed := c.state != s
	c.state = s
	c.mu.Unlock()
	if changed {
		c.emit(Event{State: s})
	}
}

func (c *Client) setConn(conn *websocket.Conn) {
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
}
