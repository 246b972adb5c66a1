package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/app/wire/wiretest"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
)

// Fuzz input for FuzzWidgetFrames: frames separated by newlines (the
// docs' and tests' frames are one line each). "$ID" in a frame stands for
// the id of the request the widget holds, so the fuzzer can answer it; a
// frame starting with byte 0x02 goes as a binary frame.
const (
	fuzzIDMark     = "$ID"
	fuzzBinaryMark = 0x02
	// Enough frames to pass MaxBadFrames, few enough to keep an
	// execution short.
	fuzzMaxFrames = 3 * gateway.MaxBadFrames
)

// fuzzSeeds are widget frames from docs/PROTOCOL.md and the tests above:
// answers good and bad, the malformed ones of TestMalformedFrames, and a
// run of junk that closes the connection.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":"$ID","result":{"action":"accept","content":{"name":"Ada"}}}`,
	`{"jsonrpc":"2.0","id":"$ID","result":{"action":"accept","content":{"name":"A"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"$ID","result":{"action":"accept","content":{"name":"Ada"}}}`,
	`{"jsonrpc":"2.0","id":"$ID","result":{"action":"decline"}}` + "\n" + `{"jsonrpc":"2.0","id":"$ID","result":{"action":"cancel"}}`,
	`{"jsonrpc":"2.0","id":"$ID","result":{"action":"accept","content":{"name":"Ada"},"answeredAt":"2026-12-02T16:00:00Z","_meta":{}}}`,
	`{"jsonrpc":"2.0","id":"$ID","error":{"code":-32602,"message":"unsupported elicitation mode: url"}}`,
	`{"jsonrpc":"2.0","id":"gone","result":{"action":"cancel"}}`,
	`{"jsonrpc":":`,
	`{"jsonrpc":"1.0","id":"a","result":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`,
	`{"jsonrpc":"2.0","id":8,"method":"formbridge/hello","params":{"token":"widget-token-for-tests"}}`,
	`{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}`,
	`{"jsonrpc":"2.0","id":"x","result":{"action":"maybe"}}`,
	`{"jsonrpc":"2.0","id":"$ID","result":{"action":"accept","content":[1]}}`,
	`{"jsonrpc":"2.0","id":"$ID","result":null}`,
	`{"jsonrpc":"2.0","id":"","result":{"action":"accept"}}`,
	`{"jsonrpc":"2.0","method":"notifications/whatever"}` + "\n" + `{"jsonrpc":"2.0","id":"probe","method":"formbridge/draft","params":{}}`,
	"\x02" + `{"jsonrpc":"2.0","id":"$ID","result":{"action":"decline"}}`,
	strings.Repeat("junk\n", gateway.MaxBadFrames) + `{"jsonrpc":"2.0","id":"$ID","result":{"action":"decline"}}`,
	strings.Repeat(`{"jsonrpc":"2.0","id":"x","result":{"action":"maybe"}}`+"\n", gateway.MaxBadFrames-1) +
		`{"jsonrpc":"2.0","id":"$ID","result":{"action":"decline"}}`,
}

// probeSeq makes each probe's id one no fuzzed frame can have guessed.
var probeSeq atomic.Int64

// FuzzWidgetFrames feeds a real gateway, over loopback, the frames of one
// widget after a good hello, while the widget holds one request. Each
// frame is followed by a probe (a request for a method the bridge lacks,
// which is not a bad frame) so that what the bridge said about the frame
// is known. Properties: every frame gets at most one JSON-RPC error, with
// a documented code and the frame's id (null when it has none), and
// -32003 is followed by settled "unknown"; the connection closes with
// 1008 exactly when MaxBadFrames frames were bad; while it is open, a
// valid answer after any garbage settles the request; and nothing is
// left behind: no widget attached, no request pending, no goroutine.
func FuzzWidgetFrames(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	// One bridge for every input: starting one costs more than a run.
	b := start(f, &bridgeOptions{hub: hub.Options{RatePerMinute: 1 << 20}})
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte("\n"))
		if len(frames) > fuzzMaxFrames {
			frames = frames[:fuzzMaxFrames]
		}
		goroutines := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		c := dial(t, b)
		c.hello(token, true)
		call := elicitAsync(ctx, b.h, nameForm, nil)
		id, _ := c.request()
		idJSON, _ := json.Marshal(id)
		// In a frame the id goes in as its JSON string's contents.
		idText := string(idJSON[1 : len(idJSON)-1])

		bad, open := 0, true
		for i, frame := range frames {
			typ, frame := fuzzFrame(bytes.ReplaceAll(frame, []byte(fuzzIDMark), []byte(idText)))
			if !fuzzWrite(c, typ, frame) {
				open = false // closed as the previous frame was answered
				break
			}
			probe := fmt.Sprintf(`"probe-%d"`, probeSeq.Add(1))
			if !fuzzWrite(c, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":`+probe+`,"method":"fuzz/probe"}`)) {
				open = false
			}
			var replies []wire.Message
			for open {
				raw, err := c.recvRaw()
				if err != nil {
					if s := websocket.CloseStatus(err); s != websocket.StatusPolicyViolation {
						t.Fatalf("frame %d %q: connection ended with %v (status %d); want a 1008 close after %d bad frames", i, frame, err, s, gateway.MaxBadFrames)
					}
					open = false
					break
				}
				var m wire.Message
				if err := json.Unmarshal(raw, &m); err != nil || m.JSONRPC != wire.Version {
					t.Fatalf("frame %d %q: the bridge sent %q, not JSON-RPC 2.0", i, frame, raw)
				}
				if string(m.ID) == probe {
					if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
						t.Fatalf("probe answered %s; want -32601", raw)
					}
					break
				}
				replies = append(replies, m)
			}
			bad += checkReplies(t, i, typ, frame, replies)
			if bad >= gateway.MaxBadFrames && open {
				t.Fatalf("after frame %d %q: %d bad frames and the connection is still open", i, frame, bad)
			}
			if !open {
				if bad < gateway.MaxBadFrames {
					t.Fatalf("after frame %d %q: closed with 1008 after %d bad frames; want %d", i, frame, bad, gateway.MaxBadFrames)
				}
				break
			}
		}

		if open {
			// A valid answer after any garbage still settles the request
			// (or the fuzzer's own answer did).
			c.answer(id, wire.ElicitResult{Action: wire.ActionDecline})
			for {
				m := c.recv()
				var p wire.SettledParams
				if m.Method == wire.MethodSettled && json.Unmarshal(m.Params, &p) == nil && p.RequestID == id && p.Outcome != wire.OutcomeRejected {
					// answered-elsewhere: this widget's earlier answer won,
					// and the decline is heard as a late one.
					if p.Outcome != wire.OutcomeAnswered && p.Outcome != wire.OutcomeAnsweredElsewhere {
						t.Fatalf("the request settled %q; want answered", p.Outcome)
					}
					break
				}
			}
			if res, err := call.wait(t); err != nil || res == nil {
				t.Fatalf("the caller got %+v, %v; want the answer", res, err)
			}
		} else {
			cancel()
			if _, err := call.wait(t); !errors.Is(err, context.Canceled) {
				t.Fatalf("the caller got %v; want its own cancellation", err)
			}
		}

		c.c.CloseNow()
		noneLeftBehind(t, b, goroutines)
	})
}

// fuzzFrame reads fuzzBinaryMark off a frame.
func fuzzFrame(fr []byte) (websocket.MessageType, []byte) {
	if len(fr) > 0 && fr[0] == fuzzBinaryMark {
		return websocket.MessageBinary, fr[1:]
	}
	return websocket.MessageText, fr
}

// noneLeftBehind fails unless, within 5 s of a fuzz run's widget closing,
// b holds no widget, request or connection in the lobby, and no more
// goroutines run than before the run.
func noneLeftBehind(t *testing.T, b *bridge, goroutines int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for b.h.Widgets(hub.DefaultChannel) != 0 || b.h.Pending(hub.DefaultChannel) != 0 || gateway.Unauthenticated(b.gw) != 0 || runtime.NumGoroutine() > goroutines {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("left behind: %d widgets, %d pending, %d unauthenticated, goroutines %d -> %d\n%s",
				b.h.Widgets(hub.DefaultChannel), b.h.Pending(hub.DefaultChannel), gateway.Unauthenticated(b.gw),
				goroutines, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// fuzzWrite sends one frame and reports whether the connection took it.
func fuzzWrite(c *client, typ websocket.MessageType, frame []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.c.Write(ctx, typ, frame) == nil
}

// fuzzCodes are the error codes PROTOCOL.md gives for a frame after
// hello, and whether each counts as a bad frame.
var fuzzCodes = map[int]bool{
	wire.CodeParseError:     true,
	wire.CodeInvalidRequest: true,
	wire.CodeMethodNotFound: false,
	wire.CodeInvalidParams:  true,
	wire.CodeUnknownRequest: false,
}

// checkReplies checks what the bridge sent between frame i and its probe,
// and returns how many bad frames it counted (0 or 1).
func checkReplies(t *testing.T, i int, typ websocket.MessageType, frame []byte, replies []wire.Message) (bad int) {
	t.Helper()
	// The id an error about this frame must carry: null when the frame
	// cannot be read or has none.
	wantID := json.RawMessage("null")
	var m wire.Message
	parsed := typ == websocket.MessageText && json.Unmarshal(frame, &m) == nil
	if parsed && len(m.ID) > 0 {
		wantID = m.ID
	}
	// PROTOCOL.md: an answer whose id is not a string is -32600.
	wantCode := 0
	if parsed && m.JSONRPC == wire.Version && m.IsResponse() && !bytes.HasPrefix(bytes.TrimSpace(m.ID), []byte(`"`)) {
		wantCode = wire.CodeInvalidRequest
	}
	errs := 0
	for j, r := range replies {
		switch {
		case r.Error != nil && r.Method == "" && r.Result == nil:
			errs++
			counts, ok := fuzzCodes[r.Error.Code]
			if !ok || errs > 1 || !wiretest.SameJSON(r.ID, wantID) {
				t.Fatalf("frame %d %q: error %d with id %s (error %d for it); want at most one, of a documented code, with id %s",
					i, frame, r.Error.Code, r.ID, errs, wantID)
			}
			if wantCode != 0 && r.Error.Code != wantCode {
				t.Fatalf("frame %d %q: error %d; want %d", i, frame, r.Error.Code, wantCode)
			}
			if counts {
				bad++
			}
			if r.Error.Code == wire.CodeUnknownRequest {
				var p wire.SettledParams
				id, _ := wire.StringID(r.ID)
				if j+1 >= len(replies) || replies[j+1].Method != wire.MethodSettled || json.Unmarshal(replies[j+1].Params, &p) != nil ||
					p.RequestID != id || p.Outcome != hub.OutcomeUnknown {
					t.Fatalf("frame %d %q: -32003 not followed by settled unknown for %s", i, frame, r.ID)
				}
			}
		case r.Method == wire.MethodSettled && len(r.ID) == 0:
			var p wire.SettledParams
			if json.Unmarshal(r.Params, &p) != nil {
				t.Fatalf("frame %d %q: settled %s", i, frame, r.Params)
			}
			switch p.Outcome {
			case wire.OutcomeAnswered, wire.OutcomeAnsweredElsewhere, wire.OutcomeRejected,
				wire.OutcomeCancelled, wire.OutcomeExpired, wire.OutcomeUnknown:
			default:
				t.Fatalf("frame %d %q: settled with outcome %q", i, frame, p.Outcome)
			}
		case r.Method == wire.MethodHeartbeat && len(r.ID) == 0:
		default:
			t.Fatalf("frame %d %q: the bridge sent %+v", i, frame, r)
		}
	}
	if wantCode != 0 && errs == 0 {
		t.Fatalf("frame %d %q: no error; want %d", i, frame, wantCode)
	}
	return bad
}
