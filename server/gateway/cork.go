package gateway

import (
	"net"
	"sync"
	"time"
)

// maxCork bounds the bytes a corked connection holds before it writes
// them anyway.
const maxCork = 64 << 10

// corkWriter sits under coder/websocket's buffered writer, which flushes
// after every message. While corked, flushed bytes collect here, so the
// writer sends a batch of frames (a backlog after a reconnect, or a queue
// that grew while the machine was busy) with one system call. Uncorked,
// it writes straight through.
type corkWriter struct {
	conn net.Conn

	mu     sync.Mutex
	corked bool
	buf    []byte
}

func (w *corkWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.corked {
		return w.conn.Write(p)
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= maxCork {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (w *corkWriter) cork() {
	w.mu.Lock()
	w.corked = true
	w.mu.Unlock()
}

// uncork writes what collected. A write error here is the first sign of
// a dead peer: the caller drops the connection.
func (w *corkWriter) uncork() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.corked = false
	return w.flushLocked()
}

func (w *corkWriter) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	// coder/websocket bounds its own writes with a context; these bytes
	// left its hands already, so bound them here.
	w.conn.SetWriteDeadline(time.Now().Add(WriteTimeout))
	_, err := w.conn.Write(w.buf)
	w.conn.SetWriteDeadline(time.Time{})
	if cap(w.buf) > 16<<10 {
		w.buf = nil // an idle connection keeps no big buffer
	} else {
		w.buf = w.buf[:0]
	}
	return err
}
