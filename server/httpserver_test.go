package main

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
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

// Clients that stall part way through their headers hold the memory of
// what they sent until ReadHeaderTimeout: with net/http's 1 MB default,
// each small header line ("A:b") cost the bridge some 8 bytes per byte
// sent, and 500 such clients on loopback took a bridge to 3.9 GB. A
// bridge's callers send a few KB of headers: a larger block is refused
// with 431 as soon as it passes the bound.
func TestStalledHeadersHoldLittle(t *testing.T) {
	srv := testHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), time.Minute)
	var block strings.Builder
	for block.Len() < 1<<20 {
		block.WriteString("A:b\r\n")
	}
	request := []byte("GET / HTTP/1.1\r\nHost: bridge\r\n" + block.String()) // shared by the clients
	const clients = 16
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	statuses := make(chan string, clients)
	for range clients {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		go func() {
			// Never finishes its headers; the write fails once the
			// bridge hangs up.
			conn.Write(request)
		}()
		go func() {
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(conn).ReadString('\n')
			statuses <- strings.TrimSpace(line)
		}()
	}
	var peak uint64
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		peak = max(peak, heap())
		time.Sleep(50 * time.Millisecond)
	}
	grew := int64(peak) - int64(before)
	t.Logf("%d clients stalled in 1 MB of headers: heap +%.1f MB", clients, float64(grew)/(1<<20))
	if grew > 16<<20 {
		t.Errorf("%d clients stalled in their headers hold %.0f MB of the bridge's heap; want under 16 MB", clients, float64(grew)/(1<<20))
	}
	// A client still writing when the bridge hangs up may lose the 431 to
	// the connection's reset (net/http waits 500 ms for it to read): one
	// is enough to show why they were cut, and none may pass.
	refused := 0
	for range clients {
		switch got := <-statuses; {
		case strings.Contains(got, "431"):
			refused++
		case got != "":
			t.Errorf("a client sending 1 MB of headers got %q; want 431 Request Header Fields Too Large", got)
		}
	}
	if refused == 0 {
		t.Error("no client sending 1 MB of headers got 431 Request Header Fields Too Large")
	}
	// Large cookies behind a single sign-on proxy still pass.
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Cookie", "sso="+strings.Repeat("x", 24<<10))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request with a 24 KiB cookie got %s; want 200", resp.Status)
	}
}
