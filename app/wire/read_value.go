package wire

import "encoding/json"

// value is one JSON value as encoding/json decodes it into an interface:
// map[string]any, []any, string, float64, bool or nil. Every method is
// safe on any value: a member of a non-object, or a missing member, is
// null.
type value struct{ v any }

// parse reads a JSON text. Decoding into an interface runs none of
// encoding/json's per-type reflection (see ReadFrame).
func parse(data []byte) (value, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return value{}, err
	}
	return value{v}, nil
}

func (v value) member(key string) value {
	m, _ := v.v.(map[string]any)
	return value{m[key]}
}

func (v value) isObject() bool {
	_, ok := v.v.(map[string]any)
	return ok
}

func (v value) isNull() bool { return v.v == nil }

func (v value) text() (string, bool) {
	s, ok := v.v.(string)
	return s, ok
}

func (v value) number() (float64, bool) {
	f, ok := v.v.(float64)
	return f, ok
}

func (v value) boolean() (bool, bool) {
	b, ok := v.v.(bool)
	return b, ok
}

// elems returns an array's elements; ok is false for anything else.
func (v value) elems() (elems []value, ok bool) {
	a, ok := v.v.([]any)
	if !ok {
		return nil, false
	}
	elems = make([]value, len(a))
	for i, e := range a {
		elems[i] = value{e}
	}
	return elems, true
}
