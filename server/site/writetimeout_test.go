package site

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A Go host that serves the site on a server with a WriteTimeout of its
// own keeps that bound: the stall deadline, set anew for each piece of a
// response, must not stretch a response past it (a client taking 32 KiB
// now and then would hold app.wasm for hours).
func TestHostWriteTimeoutKept(t *testing.T) {
	dir, size := bigWasmDir(t)
	srv := httptest.NewUnstartedServer(newSite(t, &Options{WebDir: dir, Version: "test"}))
	const writeTimeout = 500 * time.Millisecond
	srv.Config.WriteTimeout = writeTimeout
	srv.Start()
	defer srv.Close()
	// A small receive buffer, so that the kernel cannot take the whole
	// file off the bridge's hands before the WriteTimeout.
	client := &http.Client{Transport: &http.Transport{DialContext: smallBufferDialer().DialContext}}
	req, _ := http.NewRequest("GET", srv.URL+"/web/app.wasm", nil)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	var got int64
	buf := make([]byte, 128<<10)
	for time.Since(start) < 20*writeTimeout {
		time.Sleep(writeTimeout / 5)
		m, err := io.ReadFull(resp.Body, buf)
		got += int64(m)
		if err != nil {
			break
		}
	}
	if got == size {
		t.Errorf("a client reading 128 KiB every %s got all %d bytes in %s, past the host's WriteTimeout of %s", writeTimeout/5, got, time.Since(start).Round(time.Millisecond), writeTimeout)
	}
}
