// The fake bridge needs the host build of coder/websocket, so this runs
// on the host only.

//go:build !js

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/app/wire/wiretest"
)

// Fuzz input for FuzzBridgeFrames: the frames the bridge sends after the
// widget's hello, separated by newlines (the docs' frames are one line
// each); one starting with byte 0x02 goes as a binary frame.
const (
	fuzzBinaryMark = 0x02
	fuzzMaxFrames  = 64
)

// fuzzSeeds are bridge frames from docs/PROTOCOL.md and the client's
// tests: a hello result with its backlog, requests of both modes (with
// and without the bridge's reading), settled notices, errors about
// answers, and what the client must refuse or ignore.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":"hello","result":{"channel":"default","serverInfo":{"name":"formbridge","version":"test"},"pending":0,"time":"2026-12-06T22:13:22.231563Z"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"req-1","method":"elicitation/create","params":{"_meta":{"example.com/trace":"t-1","formbridge/request":{"requester":{"name":"test-server","title":"Test Server","version":"1.0"},"createdAt":"2026-12-02T16:00:00Z","expiresAt":"2026-12-02T16:10:00Z","form":{"fields":[{"key":"email","kind":"string","title":"Email","label":"Email","required":true,"format":"email"},{"key":"guests","kind":"integer","label":"Guests","minimum":0,"maximum":5,"default":1}]}}},"message":"Who should we invite?","requestedSchema":{"type":"object","properties":{"email":{"type":"string","format":"email","title":"Email"},"guests":{"type":"integer","minimum":0,"maximum":5,"default":1}},"required":["email"]}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/formbridge/settled","params":{"requestId":"req-1","outcome":"rejected","errors":[{"field":"email","code":"format","message":"Enter an email address, like name@example.com"},{"field":"guests","code":"too_large","message":"Enter a whole number between 0 and 5"}]}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/formbridge/settled","params":{"requestId":"req-1","outcome":"answered"}}`,
	`{"jsonrpc":"2.0","id":"hello","result":{"channel":"default","serverInfo":{"name":"formbridge","version":"test"},"pending":2,"time":"2026-12-02T16:00:05Z"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"req-1","method":"elicitation/create","params":{"_meta":{"formbridge/request":{"requester":{"name":"test-server","title":"Test Server","version":"1.0"},"createdAt":"2026-12-02T16:00:00Z","expiresAt":"2026-12-02T16:10:00Z","form":{"fields":[{"key":"user","kind":"string","title":"User name","label":"User name","required":true},{"key":"password","kind":"string","label":"Password"},{"key":"teams","kind":"multiselect","label":"Teams","options":[{"value":"sales","title":"sales"},{"value":"support","title":"support"}],"default":["support"]}]},"sensitive":[{"field":"password","what":"password","reason":"Its name behind the scenes mentions a password."}]}},"message":"Sign in to the CRM","requestedSchema":{"type":"object","properties":{"user":{"type":"string","title":"User name"},"password":{"type":"string"},"teams":{"type":"array","items":{"enum":["sales","support"]},"default":["support"]}},"required":["user"]}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"req-2","method":"elicitation/create","params":{"_meta":{"formbridge/request":{"requester":{"name":"test-server","title":"Test Server","version":"1.0"},"createdAt":"2026-12-02T16:00:00Z","expiresAt":"2026-12-02T16:10:00Z","link":{"url":"https://calendar.example.com/oauth?state=xyz","scheme":"https","host":"calendar.example.com","domain":"example.com"}}},"mode":"url","message":"Connect your calendar","elicitationId":"cal-7","url":"https://calendar.example.com/oauth?state=xyz"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/formbridge/settled","params":{"requestId":"req-2","outcome":"answered"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"cal-7"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/formbridge/settled","params":{"requestId":"req-1","outcome":"answered-elsewhere","action":"accept"}}`,
	`{"jsonrpc":"2.0","id":"hello","result":{"channel":"default","serverInfo":{"name":"formbridge","version":"test"},"pending":3}}` + "\n" +
		`{"jsonrpc":"2.0","id":"a","method":"elicitation/create","params":{"message":"Approve?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"p","method":"roots/list","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":"b","method":"elicitation/create","params":{"mode":"carrier-pigeon","message":"hi"}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"message":"numbered"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"d","method":"elicitation/create","params":{"message":"m","_meta":{"formbridge/request":{"requester":{"name":"x"},"form":{"fields":[{"key":"k","kind":"future"}]}}}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"y","result":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/formbridge/settled","params":{"outcome":"unknown"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":"gone","error":{"code":-32003,"message":"no pending request has this id"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/formbridge/settled","params":{"requestId":"gone","outcome":"unknown"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad action"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/formbridge/heartbeat","params":{"time":"2026-12-02T16:00:10Z"}}` + "\n" +
		"\x02" + `{"jsonrpc":"2.0","method":"notifications/formbridge/heartbeat"}` + "\n" +
		`not json`,
	`{"jsonrpc":"2.0","id":"hello","error":{"code":-32001,"message":"unauthorized: unknown token"}}`,
	`{"jsonrpc":"2.0","id":"hello","error":{"code":-32000,"message":"too many widgets"}}`,
	`{"jsonrpc":"2.0","id":"hello","result":"not an object"}`,
	`{"jsonrpc":"2.0","id":"early","method":"elicitation/create","params":{"message":"before hello"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"hello","result":{"channel":"default","pending":1}}`,
}

// FuzzBridgeFrames runs a Client against a fake bridge that answers its
// hello with the fuzzed frames, in a synctest bubble (no real time passes
// for the heartbeat's lapse or the backoff), then lets a minute of fake
// time go by: the session lapses and reconnects, to a bridge that answers
// hello with nothing pending. Properties: no panic, and no goroutine left
// behind (the bubble fails if one is); each Event has exactly one field
// set; a Request has a non-empty id, a mode the widget renders, and the
// Meta its params carry; Synced follows a Hello, once, and lists requests
// delivered since it; a Fatal is a refused token, after which nothing
// follows but the state; and what the client writes is its hello or an
// error answering a request the bridge sent.
func FuzzBridgeFrames(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte("\n"))
		if len(frames) > fuzzMaxFrames {
			frames = frames[:fuzzMaxFrames]
		}
		// The ids of the requests among the frames, which the client may answer.
		sent := map[string]bool{}
		for _, fr := range frames {
			var m wire.Message
			if json.Unmarshal(fr, &m) == nil && m.IsRequest() {
				sent[string(m.ID)] = true
			}
		}
		synctest.Test(t, func(t *testing.T) {
			var mu sync.Mutex
			var events []Event
			dials := 0
			b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
				mu.Lock()
				dials++
				first := dials == 1
				mu.Unlock()
				bc.conn.SetReadLimit(wire.MaxAnswerBytes)
				if _, data, err := bc.conn.Read(context.Background()); err != nil {
					return
				} else if !bytes.Equal(data, helloFrame("secret", testInfo)) {
					t.Errorf("first frame %q; want the hello", data)
				}
				if !first {
					res := bridgeInfo
					res.Pending = 0
					m, _ := wire.NewResult(json.RawMessage(helloID), res)
					bc.send(m)
				} else {
					// Written while this goroutine reads: net.Pipe has no
					// buffer, and the client's replies would block its reads.
					go func() {
						for _, fr := range frames {
							typ := websocket.MessageText
							if len(fr) > 0 && fr[0] == fuzzBinaryMark {
								typ, fr = websocket.MessageBinary, fr[1:]
							}
							if bc.conn.Write(context.Background(), typ, fr) != nil {
								return
							}
						}
					}()
				}
				for {
					_, data, err := bc.conn.Read(context.Background())
					if err != nil {
						return
					}
					checkClientFrame(t, data, sent)
				}
			}}
			c := New(Options{Token: "secret", ClientInfo: testInfo, OnEvent: func(ev Event) {
				mu.Lock()
				events = append(events, ev)
				mu.Unlock()
			}})
			stop := runMem(t, b, c)
			synctest.Wait()
			time.Sleep(time.Minute)
			stop()
			checkEvents(t, events)
		})
	})
}

// checkClientFrame checks a frame the client wrote after its hello: an
// error response to a request the bridge sent (ids as the client read
// them, re-encoded).
func checkClientFrame(t *testing.T, data []byte, sent map[string]bool) {
	var m wire.Message
	if err := json.Unmarshal(data, &m); err != nil || m.JSONRPC != wire.Version || !m.IsResponse() || m.Error == nil {
		t.Errorf("the client wrote %q; want an error response", data)
		return
	}
	switch m.Error.Code {
	case wire.CodeMethodNotFound, wire.CodeInvalidRequest, wire.CodeInvalidParams:
	default:
		t.Errorf("the client wrote error %d: %q", m.Error.Code, data)
	}
	for id := range sent {
		if wiretest.SameJSON([]byte(id), m.ID) {
			return
		}
	}
	t.Errorf("the client answered id %s, which no request of the bridge had", m.ID)
}

// checkEvents checks the events of one run of FuzzBridgeFrames.
func checkEvents(t *testing.T, events []Event) {
	var (
		greeted   bool     // a Hello since the session began
		synced    bool     // its Synced came
		delivered []string // requests since the Hello
		fatal     bool
	)
	for i, ev := range events {
		set := 0
		for _, b := range []bool{ev.State != "", ev.Hello != nil, ev.Request != nil, ev.Synced != nil, ev.Settled != nil,
			ev.Complete != nil, ev.Gone != "", ev.AnswerRefused != "", ev.Fatal != nil} {
			if b {
				set++
			}
		}
		if set != 1 || (ev.Hello == nil) != ev.HelloAt.IsZero() {
			t.Fatalf("event %d %+v: %d fields set; want exactly one", i, ev, set)
		}
		if fatal && ev.State != StateOffline {
			t.Fatalf("event %d %+v after a Fatal", i, ev)
		}
		switch {
		case ev.State == StateConnecting:
			greeted, synced, delivered = false, false, nil
		case ev.Hello != nil:
			greeted, synced, delivered = true, false, nil
		case ev.Request != nil:
			r := ev.Request
			if r.ID == "" {
				t.Fatalf("event %d: a request without an id: %+v", i, r)
			}
			switch r.Params.Mode {
			case "", wire.ModeForm, wire.ModeURL:
			default:
				t.Fatalf("event %d: request %q of mode %q", i, r.ID, r.Params.Mode)
			}
			if meta, _ := r.Params.RequestMeta(); !reflect.DeepEqual(meta, r.Meta) {
				t.Fatalf("event %d: request %q Meta %+v; its params carry %+v", i, r.ID, r.Meta, meta)
			}
			delivered = append(delivered, r.ID)
		case ev.Synced != nil:
			if !greeted || synced {
				t.Fatalf("event %d: Synced %q without a Hello before it (hello %v, synced already %v)", i, ev.Synced.IDs, greeted, synced)
			}
			synced = true
			for _, id := range ev.Synced.IDs {
				if !strings.Contains("\x00"+strings.Join(delivered, "\x00")+"\x00", "\x00"+id+"\x00") || id == "" {
					t.Fatalf("event %d: Synced lists %q, not among the requests delivered since hello %q", i, id, delivered)
				}
			}
		case ev.Settled != nil:
			if ev.Settled.RequestID == "" {
				t.Fatalf("event %d: settled without a request id", i)
			}
		case ev.Complete != nil:
			if ev.Complete.ElicitationID == "" {
				t.Fatalf("event %d: complete without an elicitation id", i)
			}
		case ev.Fatal != nil:
			if !errors.Is(ev.Fatal, ErrUnauthorized) {
				t.Fatalf("event %d: Fatal %v; want only a refused token to stop the client", i, ev.Fatal)
			}
			fatal = true
		}
	}
}
