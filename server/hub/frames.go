package hub

import (
	"bytes"
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
	if frame, ok := spliceCreate(id, params, meta); ok {
		return frame, nil
	}
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

// spliceCreate is encodeCreate's fast path for the usual params without
// _meta: it writes _meta in front of the server's members instead of
// decoding and encoding them again. Params that mention _meta, or use \u
// escapes (a key could spell _meta that way), take the slow path, so the
// bridge's _meta is always the only one. params must be a JSON object
// (ParseRequest checked it).
func spliceCreate(id string, params json.RawMessage, meta wire.RequestMeta) ([]byte, bool) {
	p := bytes.TrimSpace(params)
	if len(p) < 2 || p[0] != '{' || bytes.Contains(p, []byte(`"_meta"`)) || bytes.Contains(p, []byte(`\u`)) {
		return nil, false
	}
	idJSON, err1 := json.Marshal(id)
	metaJSON, err2 := json.Marshal(meta)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	rest := bytes.TrimSpace(p[1:])
	b := make([]byte, 0, len(p)+len(metaJSON)+128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, idJSON...)
	b = append(b, `,"method":"`+wire.MethodElicit+`","params":{"_meta":{"`+wire.MetaKey+`":`...)
	b = append(b, metaJSON...)
	b = append(b, '}')
	if rest[0] != '}' {
		b = append(b, ',')
	}
	b = append(b, rest...)
	return append(b, '}'), true
}

// settledFrame encodes notifications/formbridge/settled. Without errors,
// and with an id the hub made (letters, digits and '-', nothing to
// escape), it is written directly: two of these go out for every settled
// request.
func settledFrame(id, outcome string, errs []elicit.FieldError) []byte {
	if len(errs) > 0 || !plainID(id) {
		return notificationFrame(wire.MethodSettled, wire.SettledParams{RequestID: id, Outcome: outcome, Errors: errs})
	}
	b := make([]byte, 0, 96+len(id)+len(outcome))
	b = append(b, `{"jsonrpc":"2.0","method":"`+wire.MethodSettled+`","params":{"requestId":"`...)
	b = append(b, id...)
	b = append(b, `","outcome":"`...)
	b = append(b, outcome...)
	return append(b, `"}}`...)
}

// plainID reports whether id needs no escaping in a JSON string.
func plainID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
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
