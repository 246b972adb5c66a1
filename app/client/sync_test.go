//go:build !js

package client

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/formbridge/formbridge/app/wire"
)

// TestSyncedAndGone: after hello the client counts the pending requests
// the bridge announced (elicitation/create only), a refused one
// included, and then says which it delivered; it ignores results and
// notices that name no request of its own; a -32003 for an answer
// becomes a Gone event, any other error for one an AnswerRefused event
// (the request still waits).
func TestSyncedAndGone(t *testing.T) {
	params := formParams(t)
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		res := bridgeInfo
		res.Pending = 3
		if _, ok := bc.hello("secret", res); !ok {
			return
		}
		bc.request("a", wire.MethodElicit, params)
		bc.request("p", "roots/list", map[string]any{})                                               // refused, not one of the three
		bc.request("b", wire.MethodElicit, map[string]any{"mode": "carrier-pigeon", "message": "hi"}) // refused, still counted
		bc.request("c", wire.MethodElicit, map[string]any{"mode": "url", "message": "Sign in", "url": "https://example.com/a", "elicitationId": "e1"})
		bc.request("d", wire.MethodElicit, params) // new: after the backlog
		for range 2 {                              // the refusals of p and b
			if _, err := bc.read(); err != nil {
				return
			}
		}
		// Ignored: a result for an id the client never asked about, and
		// notices that name no request.
		if res, err := wire.NewResult([]byte(`"y"`), map[string]any{}); err == nil {
			bc.send(res)
		}
		bc.notify(wire.MethodSettled, wire.SettledParams{Outcome: "unknown"})
		bc.notify(wire.MethodComplete, wire.CompleteParams{})
		bc.send(wire.NewError([]byte(`"old"`), wire.CodeUnknownRequest, "no pending request has this id", nil))
		bc.send(wire.NewError([]byte(`"x"`), wire.CodeInvalidParams, "bad action", nil)) // the answer, not the request
		bc.notify(wire.MethodSettled, wire.SettledParams{RequestID: "old", Outcome: "unknown"})
		bc.read()
	}}
	rec, _ := runClient(t, startBridge(t, b))

	var got []string
	for len(got) < 9 {
		ev := rec.next(t)
		switch {
		case ev.State != "":
			got = append(got, "state "+string(ev.State))
		case ev.Hello != nil:
			got = append(got, "hello")
		case ev.Request != nil:
			got = append(got, "request "+ev.Request.ID)
		case ev.Synced != nil:
			got = append(got, "synced")
			if !cmp.Equal(ev.Synced.IDs, []string{"a", "c"}) {
				t.Errorf("synced %q, want [a c]", ev.Synced.IDs)
			}
		case ev.Gone != "":
			got = append(got, "gone "+ev.Gone)
		case ev.AnswerRefused != "":
			got = append(got, "refused "+ev.AnswerRefused)
		case ev.Settled != nil:
			got = append(got, "settled "+ev.Settled.RequestID)
		case ev.Complete != nil:
			got = append(got, "complete "+ev.Complete.ElicitationID)
		}
	}
	want := []string{"state connecting", "state online", "hello", "request a", "request c"}
	if !cmp.Equal(got[:5], want) || got[6] != "request d" || got[7] != "gone old" || got[8] != "refused x" {
		t.Errorf("events %q", got)
	}
	if ev := rec.next(t); ev.Settled == nil || ev.Settled.RequestID != "old" {
		t.Errorf("event %+v, want the settled notice after the error", ev)
	}
}

// TestSyncedAtOnce: with nothing pending, Synced follows hello at once,
// so a widget withdraws everything it kept.
func TestSyncedAtOnce(t *testing.T) {
	b := &fakeBridge{t: t, serve: func(bc *bridgeConn) {
		res := bridgeInfo
		res.Pending = 0
		if _, ok := bc.hello("secret", res); !ok {
			return
		}
		bc.read()
	}}
	rec, _ := runClient(t, startBridge(t, b))
	for {
		ev := rec.next(t)
		if ev.Hello != nil {
			break
		}
	}
	if ev := rec.next(t); ev.Synced == nil || len(ev.Synced.IDs) != 0 {
		t.Errorf("event after hello = %+v, want an empty synced", ev)
	}
}
