package gateway_test

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/internal/logbuf"
)

// loggedBridge starts a bridge whose log the test reads.
func loggedBridge(t *testing.T) (*bridge, *logbuf.Buffer) {
	var logs logbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return start(t, &bridgeOptions{gateway: gateway.Options{Logger: log}}), &logs
}

// What a client sends costs the log a bounded line, however long it is:
// a refused origin of 100 KB is not written out (twice, with the error).
func TestRefusedOriginLoggedShort(t *testing.T) {
	b, logs := loggedBridge(t)
	origin := "https://" + strings.Repeat("a", 100<<10) + ".example"
	_, err := dialWith(t, b.url, &websocket.DialOptions{
		Subprotocols: []string{wire.Subprotocol},
		HTTPHeader:   http.Header{"Origin": {origin}},
	})
	var de *dialError
	if !errors.As(err, &de) || de.status != http.StatusForbidden {
		t.Fatalf("dial: %v; want HTTP 403", err)
	}
	got := waitLogged(t, logs, "WebSocket refused", 1)
	if len(got) > 1024 {
		t.Errorf("one refused origin wrote %d bytes of log; want a short line", len(got))
	}
	// It says what to change, for the operator who meant to allow it.
	if !strings.Contains(got, "--allowed-origins") {
		t.Errorf("the log line does not name the setting: %s", got)
	}
}

// A widget may answer requests with errors (a mode it cannot show); a
// stream of them is logged as news only at first.
func TestWidgetErrorsLoggedAtFirst(t *testing.T) {
	b, logs := loggedBridge(t)
	c := dial(t, b)
	c.hello(token, false)
	for i := range 20 {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"x%d","error":{"code":-32602,"message":"cannot show this"}}`, i))
	}
	// Frames are handled in order: once this one is answered, every
	// error before it has been logged. The connection is still open.
	c.send(`{"jsonrpc":"2.0","id":99,"method":"no/such"}`)
	if m := c.recv(); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Fatalf("after the errors: %+v; want method not found", m)
	}
	if n := strings.Count(logs.String(), "widget returned an error"); n != 3 {
		t.Errorf("%d error responses logged at info; want the first 3", n)
	}
}

// waitLogged waits until the log holds n lines with msg (the log is
// written after the client hears back) and returns it.
func waitLogged(t *testing.T, logs *logbuf.Buffer, msg string, n int) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(logs.String(), msg) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the log lacks %d × %q: %q", n, msg, logs.String())
		}
		time.Sleep(time.Millisecond)
	}
	return logs.String()
}

// A frame over the size limit is logged: the connection ends with 1009,
// and whatever it answered stays pending.
func TestOversizedFrameLogged(t *testing.T) {
	b, logs := loggedBridge(t)
	c := dial(t, b)
	c.hello(token, false)
	c.send(`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("a", wire.MaxAnswerBytes) + `"}`)
	if got := c.closed(); got != websocket.StatusMessageTooBig {
		t.Errorf("close status %v; want 1009", got)
	}
	waitLogged(t, logs, "a frame over the size limit", 1)
}
