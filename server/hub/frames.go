package hub

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// stamp is the part of a request's RequestMeta that is its own: who
// asked and when. The rest, the view, belongs to its params.
type stamp struct {
	requester        wire.Implementation
	created, expires time.Time
}

// encodeCreate builds the elicitation/create frame for a widget: the
// server's params as received, with the bridge's RequestMeta (st and the
// params' view, see parsed) added under _meta, replacing any the server
// put there, so a server cannot pose as another requester or hand the
// widget another form. requestedSchema is carried as raw JSON text, so
// the order of its properties survives.
func encodeCreate(id string, params json.RawMessage, st *stamp, view []byte) ([]byte, error) {
	if frame, ok := spliceCreate(id, params, st, view); ok {
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
	m[wire.MetaKey] = appendMeta(nil, st, view)
	var err error
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
func spliceCreate(id string, params json.RawMessage, st *stamp, view []byte) ([]byte, bool) {
	if !canSplice(params) || !plainID(id) {
		return nil, false
	}
	p := bytes.TrimSpace(params)
	rest := bytes.TrimSpace(p[1:])
	r := &st.requester
	b := make([]byte, 0, len(p)+len(view)+len(id)+len(r.Name)+len(r.Title)+len(r.Version)+224)
	b = append(b, `{"jsonrpc":"2.0","id":"`...)
	b = append(b, id...)
	b = append(b, `","method":"`+wire.MethodElicit+`","params":{"_meta":{"`+wire.MetaKey+`":`...)
	b = appendMeta(b, st, view)
	b = append(b, '}')
	if rest[0] != '}' {
		b = append(b, ',')
	}
	b = append(b, rest...)
	return append(b, '}'), true
}

// appendMeta appends the RequestMeta of st and view as json.Marshal
// encodes it, without reflection: this runs for every request, on the
// caller's goroutine, whose stack stays small while it waits. view (the
// RequestView's members, encoded once per params, see newParsed) is
// copied as is.
func appendMeta(b []byte, st *stamp, view []byte) []byte {
	r := &st.requester
	b = append(b, `{"requester":{"name":`...)
	b = appendString(b, r.Name)
	if r.Title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, r.Title)
	}
	if r.Version != "" {
		b = append(b, `,"version":`...)
		b = appendString(b, r.Version)
	}
	b = append(b, `},"createdAt":`...)
	b = appendTime(b, st.created)
	b = append(b, `,"expiresAt":`...)
	b = appendTime(b, st.expires)
	if len(view) > 0 {
		b = append(b, ',')
		b = append(b, view...)
	}
	return append(b, '}')
}

// appendString appends s as a JSON string, exactly as encoding/json
// writes it: printable ASCII other than '"', '\\', '<', '>' and '&' as is,
// anything else through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return appendEscaped(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendEscaped is appendString's rare case, out of line so that
// encoding/json's frames are not on a caller's stack for the usual one.
//
//go:noinline
func appendEscaped(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// appendTime appends t as time.Time's MarshalJSON does (RFC 3339 with
// the fraction's trailing zeros cut). Years outside 0..9999, which it
// refuses, cannot occur: t is now, or now plus at most a day. A UTC time,
// what the hub stamps, is written digit by digit: time's own formatter
// alone would take a waiting caller past Go's smallest stack (see
// Hub.submit).
func appendTime(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	if t.Location() != time.UTC || y < 0 || y > 9999 {
		return appendTimeFormatted(b, t)
	}
	sod := int(t.Unix() % 86400) // UTC: no leap seconds, and a day of 86400 s
	if sod < 0 {
		sod += 86400
	}
	h, mi, s := sod/3600, sod/60%60, sod%60
	buf := [...]byte{'"', 0, 0, 0, 0, '-', 0, 0, '-', 0, 0, 'T', 0, 0, ':', 0, 0, ':', 0, 0, '.', 0, 0, 0, 0, 0, 0, 0, 0, 0}
	putDigits(buf[1:5], y)
	putDigits(buf[6:8], int(mo))
	putDigits(buf[9:11], d)
	putDigits(buf[12:14], h)
	putDigits(buf[15:17], mi)
	putDigits(buf[18:20], s)
	n := 20
	if ns := t.Nanosecond(); ns != 0 {
		putDigits(buf[21:30], ns)
		n = 30
		for buf[n-1] == '0' {
			n--
		}
	}
	b = append(b, buf[:n]...)
	return append(b, 'Z', '"')
}

// putDigits writes v, which is not negative, into all of dst.
func putDigits(dst []byte, v int) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
}

//go:noinline
func appendTimeFormatted(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// canSplice reports whether spliceCreate takes params (given an id the
// hub made): then encoding them cannot fail.
func canSplice(params json.RawMessage) bool {
	p := bytes.TrimSpace(params)
	return len(p) >= 2 && p[0] == '{' && !bytes.Contains(p, []byte(`"_meta"`)) && !bytes.Contains(p, []byte(`\u`))
}

// settledFrame encodes notifications/formbridge/settled. Without errors,
// and with an id the hub made (letters, digits and '-', nothing to
// escape), it is written directly: two of these go out for every settled
// request.
func settledFrame(id, outcome string, errs []elicit.FieldError, action string) []byte {
	if len(errs) > 0 || !plainID(id) {
		return notificationFrame(wire.MethodSettled, wire.SettledParams{RequestID: id, Outcome: outcome, Errors: errs, Action: action})
	}
	b := make([]byte, 0, 112+len(id)+len(outcome))
	b = append(b, `{"jsonrpc":"2.0","method":"`+wire.MethodSettled+`","params":{"requestId":"`...)
	b = append(b, id...)
	b = append(b, `","outcome":"`...)
	b = append(b, outcome...)
	if action != "" { // one of wire's action constants: nothing to escape
		b = append(b, `","action":"`...)
		b = append(b, action...)
	}
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
