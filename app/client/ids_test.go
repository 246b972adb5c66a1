//go:build !js

package client

import (
	"testing"

	"github.com/formbridge/formbridge/app/wire"
)

// TestRequestWithoutID: a request whose id is empty or null (found by
// FuzzBridgeFrames) is refused like one with a number id, not handed to
// the UI, which keys requests by id and reads "" as none; and an error
// about an answer with such an id is no event, not an empty one.
func TestRequestWithoutID(t *testing.T) {
	params := formParams(t)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		if _, ok := bc.hello("secret", bridgeInfo); !ok {
			return
		}
		for _, id := range []string{`""`, `null`} {
			m, _ := wire.NewRequest("", wire.MethodElicit, params)
			m.ID = []byte(id)
			bc.send(m)
			bc.send(wire.NewError([]byte(id), wire.CodeUnknownRequest, "no pending request has this id", nil))
		}
		bc.request("a", wire.MethodElicit, params)
		bc.read()
	}}
	rec, _ := runClient(t, startBridge(t, b))
	for {
		ev := rec.next(t)
		if ev.Request != nil && ev.Request.ID == "a" {
			return
		}
		if ev.Request != nil {
			t.Fatalf("event %+v; want the request without an id refused", ev)
		}
		if ev == (Event{}) {
			t.Fatal("an empty event: an error about an answer whose id is empty")
		}
	}
}
