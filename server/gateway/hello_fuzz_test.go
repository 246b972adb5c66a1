package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/app/wire/wiretest"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
)

// Fuzz input for FuzzHelloFrames: frames separated by newlines, the first
// being the one that must be a hello. In a frame "$TOKEN" stands for the
// channel's token, so the fuzzer can build good hellos as easily as bad
// ones, and "$PAD" for helloFuzzPad bytes, so that a small input can pass
// the hello's 64 KiB limit. A frame starting with byte 0x02 goes as a
// binary frame (fuzzBinaryMark); a first frame starting with byte 0x03
// is not sent at all: the widget stays silent until its hello deadline.
const (
	fuzzTokenMark  = "$TOKEN"
	fuzzPadMark    = "$PAD"
	fuzzSilentMark = 0x03
	// Enough for a hello, a second one and a few frames besides; few
	// enough that a run stays short.
	helloFuzzMaxFrames = 8
	helloFuzzPad       = 8 << 10
	// At most this many pads a frame: past the hello's limit, far from
	// the later frames' (1 MiB).
	helloFuzzMaxPads = 16
)

const docsHello = `{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"$TOKEN","clientInfo":{"name":"widget","version":"1.0.0"},"capabilities":{"elicitation":{"form":{},"url":{}}}}}`

// helloFuzzSeeds are first frames from docs/PROTOCOL.md and TestHelloRefused,
// and their near misses.
var helloFuzzSeeds = []string{
	docsHello,
	strings.Replace(docsHello, "$TOKEN", "not-the-token", 1),
	strings.Replace(docsHello, `"$TOKEN"`, `""`, 1),
	strings.Replace(docsHello, `"$TOKEN"`, `42`, 1),
	strings.Replace(docsHello, `"$TOKEN"`, `null`, 1),
	// Near misses of the token: pasted with a space, one character
	// short or long.
	strings.Replace(docsHello, "$TOKEN", "$TOKEN ", 1),
	strings.Replace(docsHello, "$TOKEN", " $TOKEN", 1),
	strings.Replace(docsHello, "$TOKEN", token[:len(token)-1], 1),
	strings.Replace(docsHello, "$TOKEN", "$TOKENs", 1),
	`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"clientInfo":{"name":"w"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"WIDGET-TOKEN-FOR-TESTS"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":"$TOKEN"}`,
	`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello"}`,
	// Members a newer widget might add, at both levels.
	`{"jsonrpc":"2.0","id":"h","method":"formbridge/hello","params":{"token":"$TOKEN","clientInfo":{"name":"w","title":"W","icons":[]},"capabilities":{"elicitation":{"form":{"x":1}},"experimental":{}},"locale":"fr"},"_meta":{}}`,
	// Ids: a string, null, none (a notification), an object.
	`{"jsonrpc":"2.0","id":"hello","method":"formbridge/hello","params":{"token":"$TOKEN"}}`,
	`{"jsonrpc":"2.0","id":null,"method":"formbridge/hello","params":{"token":"$TOKEN"}}`,
	`{"jsonrpc":"2.0","method":"formbridge/hello","params":{"token":"$TOKEN"}}`,
	`{"jsonrpc":"2.0","id":{},"method":"formbridge/hello","params":{"token":"$TOKEN"}}`,
	// clientInfo and capabilities of the wrong types.
	`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"$TOKEN","clientInfo":"widget"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"$TOKEN","clientInfo":{"name":7}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"$TOKEN","capabilities":[]}}`,
	// Hello twice; a good one after a bad one; a request after hello.
	docsHello + "\n" + docsHello,
	strings.Replace(docsHello, "$TOKEN", "nope", 1) + "\n" + docsHello,
	docsHello + "\n" + `{"jsonrpc":"2.0","id":"probe","method":"formbridge/draft","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":"gone","result":{"action":"cancel"}}`,
	// Something other than a hello first.
	`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}` + "\n" + docsHello,
	`{"jsonrpc":"2.0","id":"req-1","result":{"action":"accept"}}` + "\n" + docsHello,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
	`hello?`,
	``,
	`[` + docsHello + `]`,
	docsHello + ` {}`,
	"\x02" + docsHello,
	"\x02\xff\x00",
	"\x03",
	"\x03\n" + docsHello,
	// Large: a long name within the hello's limit, and a hello past it.
	strings.Replace(docsHello, `"widget"`, `"$PAD"`, 1),
	strings.Replace(docsHello, `"widget"`, `"`+strings.Repeat("$PAD", 9)+`"`, 1),
}

// FuzzHelloFrames feeds a real gateway, over loopback, what a widget
// sends before and as its hello, then any later frames. Properties, from
// docs/PROTOCOL.md: the first frame gets exactly one answer, which is
// either the hello's result (the channel, the hello's id) with the widget
// attached, or error -32001 with the frame's id (null when it has none)
// and close 1008; a hello over 64 KiB is closed with 1009 unanswered;
// silence is refused at the deadline like a bad frame. A frame that
// cannot be a JSON-RPC 2.0 hello with the right token never attaches, and
// one that plainly is always does. After a refusal nothing more is heard
// or attached; after a result every later frame is handled as
// FuzzWidgetFrames expects and a request is still answered. Whatever
// happens, once the widget is gone nothing is left: no connection in the
// lobby, no widget attached, no goroutine.
func FuzzHelloFrames(f *testing.F) {
	for _, s := range helloFuzzSeeds {
		f.Add([]byte(s))
	}
	// One bridge for every input, and one with a short hello deadline
	// for the silent ones: starting a bridge costs more than a run.
	b := start(f, nil)
	quick := start(f, &bridgeOptions{hello: 20 * time.Millisecond})
	pad := bytes.Repeat([]byte("a"), helloFuzzPad)
	stuck := false
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte("\n"))
		if len(frames) > helloFuzzMaxFrames {
			frames = frames[:helloFuzzMaxFrames]
		}
		for i, fr := range frames {
			fr = bytes.ReplaceAll(fr, []byte(fuzzTokenMark), []byte(token))
			frames[i] = bytes.Replace(fr, []byte(fuzzPadMark), pad, helloFuzzMaxPads)
		}
		// A failed run returns before its widget is gone; the fuzzer's
		// minimizing runs must not see it. One that stays for good fails
		// the run that finds it; the runs after it cannot tell anything.
		if stuck {
			t.Skip("an earlier run left a widget or a connection behind")
		}
		for _, br := range []*bridge{b, quick} {
			stuck = true
			waitFor(t, "the widgets of earlier runs to go", func() bool {
				return br.h.Widgets(hub.DefaultChannel) == 0 && gateway.Unauthenticated(br.gw) == 0
			})
			stuck = false
		}
		goroutines := runtime.NumGoroutine()
		br := b
		silent := len(frames[0]) > 0 && frames[0][0] == fuzzSilentMark
		if silent {
			br = quick
		}
		c := dial(t, br)
		if silent {
			m := c.recv()
			if m.Error == nil || m.Error.Code != wire.CodeUnauthorized || string(m.ID) != "null" {
				t.Fatalf("silence: got %+v; want -32001 with id null", m)
			}
			expectClosed(t, c, websocket.StatusPolicyViolation, "silence")
		} else {
			// In the lobby (ServeHTTP puts it there after the handshake's
			// reply, hence the wait) until it says something.
			waitFor(t, "the connection in the lobby", func() bool { return gateway.Unauthenticated(br.gw) == 1 })
			helloFuzzRun(t, br, c, frames)
		}

		c.c.CloseNow()
		noneLeftBehind(t, br, goroutines)
	})
}

// helloFuzzRun sends the first frame, checks the answer, and then the
// later frames.
func helloFuzzRun(t *testing.T, b *bridge, c *client, frames [][]byte) {
	typ, first := fuzzFrame(frames[0])
	fuzzWrite(c, typ, first)
	verdict := judgeHello(typ, first)
	what := fmt.Sprintf("first frame %q", first)
	if typ == websocket.MessageBinary {
		what = "binary " + what
	}

	if len(first) > gateway.ReadLimit {
		// PROTOCOL.md: a hello over 64 KiB is closed with 1009, unanswered.
		expectClosed(t, c, websocket.StatusMessageTooBig, "an oversized hello")
		return
	}
	raw, err := c.recvRaw()
	if err != nil {
		t.Fatalf("%s: no answer (%v, status %d); want a result or -32001", what, err, websocket.CloseStatus(err))
	}
	var m wire.Message
	if err := json.Unmarshal(raw, &m); err != nil || m.JSONRPC != wire.Version {
		t.Fatalf("%s: the bridge sent %q, not JSON-RPC 2.0", what, raw)
	}
	// Whatever the answer, the connection said something: it has left
	// the lobby before it was answered.
	if n := gateway.Unauthenticated(b.gw); n != 0 {
		t.Fatalf("%s answered, and %d connections still wait for hello", what, n)
	}
	// The id an answer must carry: the frame's, as the bridge can read
	// it, else null.
	wantID := json.RawMessage("null")
	var fm wire.Message
	if typ == websocket.MessageText {
		// A frame with a member of the wrong type still names its id.
		json.Unmarshal(first, &fm)
	}
	if len(fm.ID) > 0 {
		wantID = fm.ID
	}
	if !wiretest.SameJSON(m.ID, wantID) {
		t.Fatalf("%s: answered with id %s; want %s", what, m.ID, wantID)
	}

	if m.Error != nil {
		if verdict == mustAttach {
			t.Fatalf("good hello %q refused: %+v", first, m.Error)
		}
		if m.Error.Code != wire.CodeUnauthorized || m.Result != nil {
			t.Fatalf("%s: error %+v; want -32001", what, m.Error)
		}
		if n := b.h.Widgets(hub.DefaultChannel); n != 0 {
			t.Fatalf("%s refused, and %d widgets attached", what, n)
		}
		// Whatever follows a refusal, even a good hello, is not heeded:
		// the next thing heard is the close.
		for _, fr := range frames[1:] {
			if typ, fr := fuzzFrame(fr); !fuzzWrite(c, typ, fr) {
				break
			}
		}
		expectClosed(t, c, websocket.StatusPolicyViolation, "refused "+what)
		if n := b.h.Widgets(hub.DefaultChannel); n != 0 {
			t.Fatalf("frames after a refused hello attached %d widgets", n)
		}
		return
	}

	if verdict == mustNotAttach {
		t.Fatalf("%s, not a JSON-RPC 2.0 hello with the token, was answered %s", what, raw)
	}
	var res wire.HelloResult
	if m.Method != "" || json.Unmarshal(m.Result, &res) != nil || res.Channel != hub.DefaultChannel || res.ServerInfo.Name == "" || res.Time.IsZero() {
		t.Fatalf("hello %q answered %s; want a result with the channel", first, raw)
	}
	if n := b.h.Widgets(hub.DefaultChannel); n != 1 {
		t.Fatalf("hello %q answered, and %d widgets attached; want 1", first, n)
	}
	// Later frames, each followed by a probe as in FuzzWidgetFrames; with
	// fewer than MaxBadFrames of them the connection stays open, and a
	// second hello attaches nothing more.
	// The last round sends only a probe: a request is still answered.
	for i := 1; i <= len(frames); i++ {
		last := i == len(frames)
		var typ websocket.MessageType
		var fr []byte
		if !last {
			typ, fr = fuzzFrame(frames[i])
			if !fuzzWrite(c, typ, fr) {
				t.Fatalf("frame %d %q: the connection closed", i, fr)
			}
		}
		probe := fmt.Sprintf(`"probe-%d"`, probeSeq.Add(1))
		if !fuzzWrite(c, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":`+probe+`,"method":"fuzz/probe"}`)) {
			t.Fatalf("after frame %d %q: the connection closed", i, fr)
		}
		var replies []wire.Message
		for {
			m := c.recv()
			if string(m.ID) == probe {
				if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
					t.Fatalf("probe answered %+v; want -32601", m)
				}
				break
			}
			replies = append(replies, m)
		}
		if !last {
			checkReplies(t, i, typ, fr, replies)
		} else if len(replies) != 0 {
			t.Fatalf("unasked: %+v", replies)
		}
		if n := b.h.Widgets(hub.DefaultChannel); n != 1 {
			t.Fatalf("after frame %d %q: %d widgets attached; want 1", i, fr, n)
		}
	}
}

type helloVerdict int

const (
	mayAttach     helloVerdict = iota // a lenient reader might take it
	mustAttach                        // plainly a good hello
	mustNotAttach                     // cannot be a hello with the token
)

// judgeHello reads a first frame without the gateway's reader. It must
// not attach when it is not a text frame holding one JSON object, with
// "jsonrpc": "2.0", the hello method and an id under some spelling of
// those keys, and the token as some string in it. It must attach when it is a
// hello by the book: those members spelled once and exactly, a string
// or number id, nothing else at the top, and params of hello's shape
// (members a newer widget may add are ignored) with the token.
func judgeHello(typ websocket.MessageType, frame []byte) helloVerdict {
	if typ != websocket.MessageText || !json.Valid(frame) || !hasString(frame, token) {
		return mustNotAttach
	}
	keys, vals, ok := objectMembers(frame)
	if !ok {
		return mustNotAttach
	}
	var rpc2, hello, id bool
	for i, k := range keys {
		var s string
		json.Unmarshal(vals[i], &s)
		rpc2 = rpc2 || strings.EqualFold(k, "jsonrpc") && s == wire.Version
		hello = hello || strings.EqualFold(k, "method") && s == wire.MethodHello
		id = id || strings.EqualFold(k, "id")
	}
	// Without an id it is a notification, which PROTOCOL.md refuses.
	if !rpc2 || !hello || !id {
		return mustNotAttach
	}
	top := distinctMembers(keys, vals)
	if len(top) != len(keys) || len(top) != 4 || top["params"] == nil || top["id"] == nil {
		return mayAttach
	}
	if id := top["id"][0]; id != '"' && id != '-' && (id < '0' || id > '9') {
		return mayAttach
	}
	pkeys, pvals, ok := objectMembers(top["params"])
	params := distinctMembers(pkeys, pvals)
	var p wire.HelloParams
	if !ok || len(params) != len(pkeys) || json.Unmarshal(top["params"], &p) != nil || p.Token != token {
		return mayAttach
	}
	return mustAttach
}

// hasString reports whether s is among the strings (keys or values) of
// the JSON value v.
func hasString(v []byte, s string) bool {
	d := json.NewDecoder(bytes.NewReader(v))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if tok == s {
			return true
		}
	}
}

// objectMembers lists the members of a JSON object in order, repeats
// included.
func objectMembers(v []byte) (keys []string, vals []json.RawMessage, ok bool) {
	d := json.NewDecoder(bytes.NewReader(v))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	for d.More() {
		k, err := d.Token()
		var raw json.RawMessage
		if err != nil || d.Decode(&raw) != nil {
			return nil, nil, false
		}
		keys, vals = append(keys, k.(string)), append(vals, raw)
	}
	return keys, vals, true
}

// distinctMembers maps the members by name, dropping every name spelled
// twice in any letter case: encoding/json would read one of them, a
// stricter reader another or neither.
func distinctMembers(keys []string, vals []json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for i, k := range keys {
		dup := false
		for j, k2 := range keys {
			dup = dup || j != i && strings.EqualFold(k, k2)
		}
		if !dup {
			m[k] = vals[i]
		}
	}
	return m
}

// expectClosed reads until the connection ends and checks that nothing
// more was said and that it closed with want.
func expectClosed(t *testing.T, c *client, want websocket.StatusCode, what string) {
	t.Helper()
	raw, err := c.recvRaw()
	if err == nil {
		t.Fatalf("%s: then the bridge sent %q; want close %d", what, raw, want)
	}
	if got := websocket.CloseStatus(err); got != want {
		t.Fatalf("%s: connection ended with %v (status %d); want close %d", what, err, got, want)
	}
}

// waitFor polls cond for a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
	}
}
