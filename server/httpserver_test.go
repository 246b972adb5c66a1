package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testHTTPServer serves h with the bridge's server settings, the read
// timeout shortened to d.
func testHTTPServer(t *testing.T, h http.Handler, d time.Duration) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config = newHTTPServer(h, slog.New(slog.DiscardHandler))
	if srv.Config.ReadTimeout <= 0 {
		t.Fatal("the bridge's server has no read timeout")
	}
	srv.Config.ReadTimeout = d
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// A client that announces a body and trickles it loses its connection
// once the read timeout passes, instead of holding it (and a goroutine)
// for as long as it likes.
func TestSlowBodyLetGo(t *testing.T) {
	readErr := make(chan error, 1)
	srv := testHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	}), 200*time.Millisecond)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /api/v1/channels HTTP/1.1\r\nHost: bridge\r\nContent-Length: 100000\r\n\r\na")
	select {
	case err := <-readErr:
		if err == nil {
			t.Fatal("the trickled body read to its end")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the body's read is still waiting 10 s on")
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Fatalf("the connection was not closed: %v", err)
	}
}

// The read timeout ends with the body: an API call may wait for a
// person far longer, its context alive, and so may a request without a
// body (an event stream).
func TestReadTimeoutSparesWaitingCalls(t *testing.T) {
	const d = 100 * time.Millisecond
	srv := testHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(5 * d): // a person thinking
			io.WriteString(w, "answered "+string(body))
		case <-r.Context().Done():
			// The call was given up: nothing reaches the client.
		}
	}), d)

	for _, tt := range []struct{ method, body, want string }{
		{"POST", "yes", "answered yes"},
		{"GET", "", "answered "},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL, strings.NewReader(tt.body))
		if tt.body == "" {
			req.Body = http.NoBody
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != tt.want {
			t.Errorf("%s: %q; want %q", tt.method, got, tt.want)
		}
	}
}
