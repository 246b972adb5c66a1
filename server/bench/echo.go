package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// echoFloor is the round trip's floor: a bare coder/websocket server that
// writes the bytes of a real elicitation/create frame and reads the
// simulated widget's answer, with nothing of formbridge in between. The
// gateway's accept options are used, so the two differ only by what
// formbridge does.
type echoFloor struct {
	srv   *http.Server
	conns chan *websocket.Conn
	url   string
	// ctx ends at close: Shutdown leaves hijacked connections alone, so
	// their handlers end on it and close them.
	ctx    context.Context
	cancel context.CancelFunc
}

func startEcho() (*echoFloor, error) { return startFloorServer(false) }

// startIdleFloor is the floor of an idle widget: a bare coder/websocket
// server that accepts with the gateway's options and keeps one goroutine
// reading each connection, as net/http and the gateway do.
func startIdleFloor() (*echoFloor, error) { return startFloorServer(true) }

func startFloorServer(hold bool) (*echoFloor, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &echoFloor{conns: make(chan *websocket.Conn, 1), url: "ws://" + ln.Addr().String() + "/"}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
			Subprotocols:    []string{wire.Subprotocol},
			CompressionMode: websocket.CompressionDisabled,
		})
		if err != nil {
			return
		}
		defer c.CloseNow()
		if hold {
			c.SetReadLimit(readLimit)
			for {
				if _, _, err := c.Read(e.ctx); err != nil {
					return
				}
			}
		}
		select {
		case e.conns <- c:
		case <-e.ctx.Done():
			return
		}
		<-e.ctx.Done() // the connection is driven from outside until the server stops
	})}
	go e.srv.Serve(ln)
	return e, nil
}

// dial connects a widget without hello, whose answer loop then answers
// whatever create frame the floor writes.
func (e *echoFloor) dial(ctx context.Context) (*simWidget, *websocket.Conn, error) {
	c, _, err := websocket.Dial(ctx, e.url, &websocket.DialOptions{Subprotocols: []string{wire.Subprotocol}})
	if err != nil {
		return nil, nil, err
	}
	c.SetReadLimit(readLimit)
	select {
	case s := <-e.conns:
		s.SetReadLimit(readLimit)
		return &simWidget{c: c}, s, nil
	case <-ctx.Done():
		c.CloseNow()
		return nil, nil, ctx.Err()
	}
}

// roundTrip writes frame and waits for the answer: one sample of the floor.
func roundTrip(ctx context.Context, s *websocket.Conn, frame []byte) (time.Duration, error) {
	start := time.Now()
	if err := s.Write(ctx, websocket.MessageText, frame); err != nil {
		return 0, err
	}
	if _, _, err := s.Read(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func (e *echoFloor) close() {
	e.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if e.srv.Shutdown(ctx) != nil {
		e.srv.Close()
	}
}
