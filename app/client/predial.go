package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// predialed is a connection Predial started.
type predialed struct {
	url   string
	hello []byte        // the hello it was started for
	done  chan struct{} // closed once conn or err is set
	conn  *websocket.Conn
	// greeted: the page's own script (web/connect.js) opened it and has
	// already sent hello on it, so the session must not again.
	greeted bool
	// heard is when the page's connection got its first frame, hello's
	// answer, if it did before it was taken: it may have waited there.
	heard time.Time
	err   error
	// refused: the page's connection ended with the bridge refusing the
	// token; there is no connection, and no point in dialing.
	refused error
}

// early holds Predial's connection until a dial takes it.
var early struct {
	sync.Mutex
	started bool
	p       *predialed
}

// Predial starts opening the WebSocket to opts.URL at once, before the
// page's UI is up; the first session to the same URL takes it. In the
// browser the handshake's open event waits for the page's first renders,
// which run on the same thread, so starting it earlier overlaps the two.
// Better still, when the page's script has already connected and said
// the same hello while the wasm loaded, that connection is taken, with
// whatever the bridge has sent on it since. Only the first call counts;
// one with no URL or token only lets go of the page's connection. A
// predialed connection that a Client does not take is closed when the
// first Client dials elsewhere (the bridge also drops a connection that
// never says hello).
func Predial(opts Options) {
	early.Lock()
	if early.started {
		early.Unlock()
		return
	}
	early.started = true
	if opts.URL == "" || opts.Token == "" {
		early.Unlock()
		dropPageSocket()
		return
	}
	p := &predialed{url: opts.URL, hello: helloFrame(opts.Token, opts.ClientInfo), done: make(chan struct{})}
	early.p = p
	early.Unlock()
	go func() {
		ctx, cancel := withTimeout(context.Background(), dialTimeout)
		defer cancel()
		// Nothing may run between these two: the page's socket is handed
		// to the very next WebSocket the browser is asked for.
		greeted, heard, refused := takePageSocket(p.url, p.hello)
		if refused != nil {
			p.refused = refused
		} else {
			p.conn, p.err = dialBridge(ctx, p.url)
			p.greeted = greeted && p.err == nil
			p.heard = heard
		}
		close(p.done)
	}()
	// Let the goroutine create the browser's WebSocket before the caller
	// goes on to build the page.
	runtime.Gosched()
}

// takeEarly hands over the predialed connection when it is to url and,
// if it has said hello already, said this one (greeted, and heard: when
// hello's answer came, if it came before). It returns no connection and
// no error when there is none to take, or an error when the page's
// connection was refused the token. The first session after Predial
// takes it or discards it; later ones dial.
func takeEarly(ctx context.Context, url string, hello []byte) (conn *websocket.Conn, greeted bool, heard time.Time, err error) {
	early.Lock()
	p := early.p
	early.p = nil
	early.Unlock()
	if p == nil {
		return nil, false, heard, nil
	}
	discard := func() {
		<-p.done
		if p.conn != nil {
			// 1000: a browser throws at CloseNow's 1001 (see session).
			p.conn.Close(websocket.StatusNormalClosure, "")
		}
	}
	if p.url != url {
		go discard()
		return nil, false, heard, nil
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		go discard()
		return nil, false, heard, nil
	}
	switch {
	case p.refused != nil && bytes.Equal(p.hello, hello):
		return nil, false, heard, p.refused
	case p.conn == nil:
		return nil, false, heard, nil
	case p.greeted && !bytes.Equal(p.hello, hello):
		go discard()
		return nil, false, heard, nil
	}
	if p.greeted {
		heard = p.heard
	}
	return p.conn, p.greeted, heard, nil
}

// connect takes the predialed connection when there is one, and dials
// otherwise (also when the early dial failed: the bridge may be up now).
// greeted says hello has been sent on it already, heard when its answer
// came, if it has.
func (c *Client) connect(ctx context.Context) (conn *websocket.Conn, greeted bool, heard time.Time, err error) {
	conn, greeted, heard, err = takeEarly(ctx, c.opts.URL, helloFrame(c.opts.Token, c.opts.ClientInfo))
	if conn != nil || err != nil {
		return conn, greeted, heard, err
	}
	conn, err = c.dial(ctx, c.opts.URL)
	return conn, false, heard, err
}

// helloRefusal is the error of a frame that is the bridge refusing the
// token of our hello (-32001), nil for any other frame.
func helloRefusal(frame []byte) error {
	var msg wire.Message
	if json.Unmarshal(frame, &msg) != nil || !msg.IsResponse() || string(msg.ID) != helloID {
		return nil
	}
	return tokenRefused(msg.Error)
}

// tokenRefused is ErrUnauthorized with the bridge's words when e refuses
// the token, nil otherwise.
func tokenRefused(e *wire.Error) error {
	if e == nil || e.Code != wire.CodeUnauthorized {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrUnauthorized, e.Message)
}
