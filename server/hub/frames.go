package hub

import (
	"encoding/json"
	"errors"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// encodeCreate builds the elicitation/create frame for a widget: the
// server's params as received, with the bridge's RequestMeta added under
// _meta (replacing any the server put there, so a server cannot pose as
// another requester). requestedSchema is carried as raw JSON text, so the
// order of its properties survives.
func encodeCreate(id string, params json.RawMessage, meta wire.RequestMeta) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(params, &top); err != nil || top == nil {
		return nil, errors.New("the params must be a JSON object")
	}
	m := map[string]json.RawMessage{}
	if raw, ok := top["_meta"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return nil, errors.New("_meta must be a JSON object")
		}
	}
	var err error
	if m[wire.MetaKey], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	if top["_meta"], err = json.Marshal(m); err != nil {
		return nil, err
	}
	msg, err := wire.NewRequest(id, wire.MethodElicit, top)
	if err != nil {
		return nil, err
	}
	return json.Marshal(msg)
}

// settledFrame encodes notifications/formbridge/settled.
func settledFrame(id, outcome string, errs []elicit.FieldError) []byte {
	return notificationFrame(wire.MethodSettled, wire.SettledParams{RequestID: id, Outcome: outcome, Errors: errs})
}

// notificationFrame encodes a notification whose params cannot fail to
// encode (plain structs of strings).
func notificationFrame(method string, params any) []byte {
	msg, err := wire.NewNotification(method, params)
	if err != nil {
		panic("hub: " + err.Error())
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic("hub: " + err.Error())
	}
	return b
}
