package gateway

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
)

// Buffer sizes of one connection. Frames are small JSON, and bufio reads
// and writes anything larger than its buffer straight through, so these
// bound memory, not message size.
const (
	readBufferSize  = 1 << 10
	writeBufferSize = 1 << 10
)

// leanWriter gives coder/websocket small buffers instead of net/http's
// 4 KiB pair. Together with returning from ServeHTTP after the upgrade
// (net/http then drops the request, its buffers and its goroutine), it
// keeps an idle widget cheap: the target is 10,000 of them at 16 KiB each.
//
// It also slips a corkWriter under the writer, kept in cork for the
// connection to batch its writes.
type leanWriter struct {
	http.ResponseWriter
	cork *corkWriter
}

func (w *leanWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	netConn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// Bytes the client sent right after the handshake (often the hello)
	// are already in net/http's buffer. They must be in the new buffer
	// too, not merely ahead of it: coder/websocket keeps what is
	// Buffered and then resets the reader onto the bare connection.
	br := bufio.NewReaderSize(netConn, readBufferSize)
	if n := brw.Reader.Buffered(); n > 0 {
		left, _ := brw.Reader.Peek(n)
		br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(left)), netConn), max(n, readBufferSize))
		if _, err := br.Peek(n); err != nil {
			netConn.Close()
			return nil, nil, err
		}
	}
	w.cork = &corkWriter{conn: netConn}
	return netConn, bufio.NewReadWriter(br, bufio.NewWriterSize(w.cork, writeBufferSize)), nil
}
