package client

import (
	"context"
	"runtime"
	"sync"

	"github.com/coder/websocket"
)

// predialed is a connection Predial started.
type predialed struct {
	url  string
	done chan struct{} // closed once conn or err is set
	conn *websocket.Conn
	err  error
}

// early holds Predial's connection until a dial takes it.
var early struct {
	sync.Mutex
	started bool
	p       *predialed
}

// Predial starts opening the WebSocket to url at once, before the page's
// UI is up; the first dial of the same URL takes it. In the browser the
// handshake's open event waits for the page's first renders, which run
// on the same thread, so starting it earlier overlaps the two. Only the
// first call counts. A predialed connection that a Client does not take
// is closed when the first Client dials elsewhere (the bridge also drops
// a connection that never says hello).
func Predial(url string) {
	early.Lock()
	if early.started {
		early.Unlock()
		return
	}
	p := &predialed{url: url, done: make(chan struct{})}
	early.started, early.p = true, p
	early.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
		defer cancel()
		p.conn, p.err = dialBridge(ctx, url)
		close(p.done)
	}()
	// Let the goroutine create the browser's WebSocket before the caller
	// goes on to build the page.
	runtime.Gosched()
}

// takeEarly hands over the predialed connection when it is to url. The
// first dial after Predial takes it or discards it; later dials are real.
func takeEarly(ctx context.Context, url string) (*websocket.Conn, bool) {
	early.Lock()
	p := early.p
	early.p = nil
	early.Unlock()
	if p == nil {
		return nil, false
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
		return nil, false
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		go discard()
		return nil, false
	}
	return p.conn, p.err == nil
}

// dialFirst takes the predialed connection when there is one, and dials
// otherwise (also when the early dial failed: the bridge may be up now).
func dialFirst(ctx context.Context, url string) (*websocket.Conn, error) {
	if conn, ok := takeEarly(ctx, url); ok {
		return conn, nil
	}
	return dialBridge(ctx, url)
}
