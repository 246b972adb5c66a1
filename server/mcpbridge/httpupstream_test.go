package mcpbridge

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The upstream's GET stream: an event of several data lines is read
// whole, and an event larger than the proxy reads is
// dropped whole (with a warning) rather than held without end, while the
// events after it still arrive.
func TestSSEStreamBoundsAnEvent(t *testing.T) {
	t.Parallel()
	chunk := strings.Repeat("x", 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range maxSSEMessage>>20 + 1 {
			fmt.Fprintf(w, "data: %s\n", chunk)
		}
		fmt.Fprint(w, "\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\ndata: \"params\":{\"progress\":1}}\n\n")
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var logs strings.Builder
	u := &httpUpstream{endpoint: srv.URL, ctx: ctx, cancel: cancel, log: slog.New(slog.NewTextHandler(&logs, nil)), merged: make(chan readResult, 16)}
	var lastID string
	go u.streamOnce(&lastID)
	select {
	case r := <-u.merged:
		req, ok := r.msg.(*jsonrpc.Request)
		if r.err != nil || !ok || req.Method != "notifications/progress" || !strings.Contains(string(req.Params), "progress") {
			t.Fatalf("read %#v, %v; want the progress notification", r.msg, r.err)
		}
	case <-ctx.Done():
		t.Fatal("the event after the oversized one never arrived")
	}
	if !strings.Contains(logs.String(), "larger than the proxy reads") {
		t.Errorf("the oversized event was dropped without a word:\n%.300s", logs.String())
	}
}
