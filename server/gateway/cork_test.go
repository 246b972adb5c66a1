package gateway

import (
	"bytes"
	"net"
	"testing"
	"time"
)

// recordingConn records each Write, standing in for a socket.
type recordingConn struct {
	net.Conn
	writes [][]byte
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func (c *recordingConn) SetWriteDeadline(time.Time) error { return nil }

func TestCorkWriter(t *testing.T) {
	rc := &recordingConn{}
	w := &corkWriter{conn: rc}

	w.Write([]byte("a"))
	if len(rc.writes) != 1 {
		t.Fatalf("uncorked write: %d writes; want it straight through", len(rc.writes))
	}
	w.cork()
	w.Write([]byte("b"))
	w.Write([]byte("c"))
	if len(rc.writes) != 1 {
		t.Fatalf("corked writes reached the socket: %q", rc.writes)
	}
	if err := w.uncork(); err != nil {
		t.Fatal(err)
	}
	if len(rc.writes) != 2 || string(rc.writes[1]) != "bc" {
		t.Fatalf("uncork wrote %q; want one write of \"bc\"", rc.writes[1:])
	}
	if err := w.uncork(); err != nil || len(rc.writes) != 2 {
		t.Errorf("an empty uncork wrote: %q, %v", rc.writes[2:], err)
	}

	// A batch past maxCork goes out without waiting for the uncork.
	w.cork()
	w.Write(make([]byte, maxCork))
	if len(rc.writes) != 3 || len(rc.writes[2]) != maxCork {
		t.Errorf("%d writes after a full cork; want the %d bytes written", len(rc.writes), maxCork)
	}
	w.uncork()
	if w.buf != nil {
		t.Errorf("an idle writer keeps a %d-byte buffer", cap(w.buf))
	}
}
