package site

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// A client that asks for the wasm and then reads nothing (or a byte now
// and then) is let go once it has taken nothing for the stall time. The
// bridge's server has no write timeout (API calls wait for a person), so
// before, such a request held its connection and goroutine for good:
// 1,000 of them on loopback were all still held after 40 s, at ~70 KB of
// the bridge's memory each, and with no end to how many.
func TestSlowReaderLetGo(t *testing.T) {
	dir, size := bigWasmDir(t)
	returned := make(chan struct{}, 1)
	serve := func(stall time.Duration) *httptest.Server {
		h := newSite(t, &Options{WebDir: dir, Version: "test"})
		h.(*site).sendStall = stall
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			returned <- struct{}{}
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	const stall = 300 * time.Millisecond
	srv := serve(stall)

	conn, err := smallBufferDialer().Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /web/app.wasm HTTP/1.1\r\nHost: bridge\r\nAccept-Encoding: identity\r\n\r\n")
	select {
	case <-returned:
	case <-time.After(20 * stall):
		t.Fatalf("the request of a client that reads nothing still holds its connection %s on (stall %s)", 20*stall, stall)
	}
	// The client got less than the file: its connection was cut.
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := io.Copy(io.Discard, conn)
	if n >= size {
		t.Errorf("the client that stalled was sent all %d bytes", n)
	}

	// A client that reads on gets the whole file, however long that takes.
	// (A stall time of its own: a busy machine may sleep the reader past
	// 300 ms.)
	const steady = 2 * time.Second
	srv = serve(steady)
	resp, err := srv.Client().Get(srv.URL + "/web/app.wasm")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got int64
	buf := make([]byte, 256<<10)
	for {
		time.Sleep(steady / 20)
		m, err := io.ReadFull(resp.Body, buf)
		got += int64(m)
		if err != nil {
			break
		}
	}
	if got != size {
		t.Errorf("a client reading 256 KiB every %s got %d bytes of %d", steady/20, got, size)
	}
}

// bigWasmDir is a web folder whose app.wasm is 4 MiB of random bytes
// with no compressed copies, so that it goes as it is; and that size.
func bigWasmDir(t *testing.T) (dir string, size int64) {
	t.Helper()
	dir = webDir(t, "body{}")
	big := make([]byte, 4<<20)
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(dir, "app.wasm"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "app.wasm.br"))
	os.Remove(filepath.Join(dir, "app.wasm.gz"))
	return dir, int64(len(big))
}

// smallBufferDialer dials with a 4 KiB receive buffer, so that the
// kernel cannot take a large response off the server's hands at once.
func smallBufferDialer() *net.Dialer {
	return &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
	}}
}

// Each piece of a response is written under a deadline of its own: a
// client that reads on, however slowly, is never cut for the time the
// whole response takes. (On loopback the kernel's buffers take most of a
// response at once, which hides a single deadline from TestSlowReaderLetGo.)
func TestStallDeadlinePerPiece(t *testing.T) {
	w := &deadlineLog{ResponseRecorder: httptest.NewRecorder()}
	sw := newStallWriter(w, httptest.NewRequest("GET", "/web/app.wasm", nil), time.Minute)
	if _, err := sw.Write(make([]byte, 2*sendChunk+100)); err != nil {
		t.Fatal(err)
	}
	want := []string{"deadline", "deadline", "write 65536", "deadline", "write 65536", "deadline", "write 100"}
	if !slices.Equal(w.log, want) {
		t.Errorf("got %q; want %q", w.log, want)
	}
}

// deadlineLog is a ResponseWriter that logs the write deadlines set on
// it and the writes, in order.
type deadlineLog struct {
	*httptest.ResponseRecorder
	log []string
}

func (d *deadlineLog) SetWriteDeadline(time.Time) error {
	d.log = append(d.log, "deadline")
	return nil
}

func (d *deadlineLog) Write(p []byte) (int, error) {
	d.log = append(d.log, fmt.Sprintf("write %d", len(p)))
	return len(p), nil
}
