package gateway_test

import (
	"testing"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
)

// Version skew: a widget newer than the bridge (a static site or CDN
// upgraded before the bridge) speaks formbridge.v1 with additions the
// bridge has never seen. They must degrade, not lose the person's answer.

// TestSkewAnswerWithNewMember: a newer widget's answer carries a member
// this bridge does not know (MCP may add one to ElicitResult; a widget
// may add one of its own). The action and content are all the bridge
// needs: it must take the answer, not refuse it with -32602 again and
// again while the person presses Send.
func TestSkewAnswerWithNewMember(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	call := elicitAsync(t.Context(), b.h, nameForm, nil)
	id, _ := c.request()
	c.send(`{"jsonrpc":"2.0","id":"` + id + `","result":{"action":"accept","content":{"name":"Ada"},"answeredAt":"2026-12-02T16:00:00Z"}}`)
	m := c.recv()
	if m.Error != nil {
		t.Fatalf("the bridge refused a newer widget's answer: %+v (the person sees \"The service did not accept your reply\" at every Send)", m.Error)
	}
	if m.Method != wire.MethodSettled {
		t.Fatalf("got %s %s; want settled", m.Method, m.Params)
	}
	res, err := call.wait(t)
	if err != nil || res.Action != wire.ActionAccept || res.Content["name"] != "Ada" {
		t.Errorf("the server got %+v, %v; want accept with name Ada", res, err)
	}
}

// TestSkewUnknownMethodIsNotAbuse: a newer widget asks for something
// this bridge does not serve (a request method added later). -32601 is
// JSON-RPC's way of saying "not here", and the widget can fall back on
// it; but the bridge counts each as a bad frame and closes the
// connection with 1008 after sixteen, which PROTOCOL.md tells a widget
// to read as "stop; the token is no good".
func TestSkewUnknownMethodIsNotAbuse(t *testing.T) {
	b := start(t, nil)
	c := dial(t, b)
	c.hello(token, false)
	for i := range 20 {
		c.send(`{"jsonrpc":"2.0","id":"probe-` + string(rune('a'+i)) + `","method":"formbridge/draft","params":{}}`)
		_, err := c.recvRaw()
		if err != nil {
			t.Fatalf("after %d requests of a method this bridge does not know, the connection closed: %v (status %d)", i, err, websocket.CloseStatus(err))
		}
	}
	// Still a working connection: a question arrives and is answered.
	call := elicitAsync(t.Context(), b.h, nameForm, nil)
	id, _ := c.request()
	c.answer(id, wire.ElicitResult{Action: wire.ActionDecline})
	if res, err := call.wait(t); err != nil || res.Action != wire.ActionDecline {
		t.Errorf("result %+v, %v; want decline", res, err)
	}
}
