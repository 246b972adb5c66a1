package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/server/site"
)

// floorPage serves testdata/hello-ws the way the widget is served
// (server/site) and its bare WebSocket at /floor-ws.
type floorPage struct {
	url   string
	srv   *http.Server
	conns chan *websocket.Conn
	conn  *websocket.Conn // the open page's, once it connected
}

func startFloorPage(webDir string) (*floorPage, error) {
	s, err := site.New(&site.Options{WebDir: webDir, Version: "bench"})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &floorPage{url: "http://" + ln.Addr().String() + "/", conns: make(chan *websocket.Conn, 1)}
	mux := http.NewServeMux()
	mux.Handle("/", s)
	mux.HandleFunc("/floor-ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			return
		}
		select {
		case f.conns <- c:
			<-r.Context().Done()
		default:
			c.CloseNow() // one page at a time
		}
	})
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go f.srv.Serve(ln)
	return f, nil
}

func (f *floorPage) close() {
	if f.conn != nil {
		f.conn.CloseNow()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if f.srv.Shutdown(ctx) != nil {
		f.srv.Close()
	}
}

// target drives the floor page: a request is its id in a text frame; the
// page's click writes the id back.
func (f *floorPage) target() openTarget {
	return openTarget{
		name: "floor",
		url:  f.url,
		connect: func(ctx context.Context) error {
			select {
			case f.conn = <-f.conns:
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("the floor page did not connect")
			}
		},
		show: func(ctx context.Context, i int) (func(), error) {
			return func() {}, f.conn.Write(ctx, websocket.MessageText, fmt.Appendf(nil, "show-%d", i))
		},
		call: func(ctx context.Context, i int) error {
			id := fmt.Appendf(nil, "call-%d", i)
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := f.conn.Write(cctx, websocket.MessageText, id); err != nil {
				return err
			}
			for {
				_, data, err := f.conn.Read(cctx)
				if err != nil {
					return err
				}
				if string(data) == string(id) {
					return nil
				}
			}
		},
	}
}
