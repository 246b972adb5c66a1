package site

import (
	"net/http"
	"time"
)

// SendStall is how long a client may go without taking any of a
// response (sendChunk at a time) before its connection is cut. A bridge's
// server has no write timeout, as API calls wait for a person, so without
// this a client that asks for the wasm and reads nothing held its
// connection and a goroutine for good. 64 KiB in 30 s is 2 KB/s, slower
// than any phone network that could load the widget at all.
const SendStall = 30 * time.Second

// sendChunk is how much of a response is written under one deadline.
const sendChunk = 64 << 10

// stallWriter writes a response sendChunk at a time, each under a write
// deadline of stall from when it starts (nginx's send_timeout). net/http
// clears the deadline once the response is finished. Not used under a
// server with a WriteTimeout, which bounds the response as a whole.
type stallWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

func newStallWriter(w http.ResponseWriter, r *http.Request, stall time.Duration) http.ResponseWriter {
	if stall <= 0 {
		return w
	}
	// A server with a WriteTimeout of its own (a Go host's) bounds the
	// whole response already: a deadline moved on for each piece would
	// lift that bound for the site's responses.
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
		return w
	}
	sw := &stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), stall: stall}
	sw.extend() // the headers, for a body-less response
	return sw
}

// extend moves the deadline to stall from now. A server that cannot set
// one (ErrNotSupported) is left as it is.
func (w *stallWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.stall)) }

func (w *stallWriter) Write(p []byte) (n int, err error) {
	for len(p) > 0 {
		chunk := p[:min(len(p), sendChunk)]
		w.extend()
		m, err := w.ResponseWriter.Write(chunk)
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
