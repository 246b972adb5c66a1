package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// This file reads JSON into a small ordered tree. encoding/json's maps
// lose the order of an object's members, and property order is the order
// a person must see the fields in; the tree also lets the parser report
// duplicate keys, which a map silently collapses.

// maxDepth bounds nesting. A flat elicitation schema is at most five
// levels deep (root, properties, field, items, anyOf entry); annotations
// such as examples may add a few more. Anything deeper is refused before
// it can cost stack or time.
const maxDepth = 32

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is one JSON value. For jNumber, s holds the number's text.
type jvalue struct {
	kind jkind
	b    bool
	s    string
	arr  []jvalue
	obj  []jmember
}

type jmember struct {
	key string
	val jvalue
}

// get returns the first member named key, or nil.
func (v *jvalue) get(key string) *jvalue {
	for i := range v.obj {
		if v.obj[i].key == key {
			return &v.obj[i].val
		}
	}
	return nil
}

// typeName names v's JSON type for a problem message.
func (v *jvalue) typeName() string {
	switch v.kind {
	case jNull:
		return "null"
	case jBool:
		return "a boolean"
	case jNumber:
		return "a number"
	case jString:
		return "a string"
	case jArray:
		return "an array"
	default:
		return "an object"
	}
}

var errTooDeep = errors.New("the JSON is nested too deeply")

// treeReader builds jvalues from a token stream, recording duplicate keys
// as problems under the JSON Pointer of the object that holds them.
type treeReader struct {
	dec   *json.Decoder
	probs *[]Problem
	segs  []string // JSON Pointer segments of the value being read
	// root is how many of segs lead to the schema's root: depth is
	// counted from there, so a schema is as deep alone as in a request.
	root int
}

func newTreeReader(r io.Reader, probs *[]Problem) *treeReader {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return &treeReader{dec: dec, probs: probs}
}

// pointer returns the JSON Pointer of the current position plus extra.
func (t *treeReader) pointer(extra ...string) string {
	var b strings.Builder
	for _, s := range t.segs {
		b.WriteByte('/')
		b.WriteString(escapePointer(s))
	}
	for _, s := range extra {
		b.WriteByte('/')
		b.WriteString(escapePointer(s))
	}
	return b.String()
}

// value reads one whole value.
func (t *treeReader) value() (jvalue, error) {
	tok, err := t.dec.Token()
	if err != nil {
		return jvalue{}, err
	}
	return t.fromToken(tok)
}

func (t *treeReader) fromToken(tok json.Token) (jvalue, error) {
	switch x := tok.(type) {
	case nil:
		return jvalue{kind: jNull}, nil
	case bool:
		return jvalue{kind: jBool, b: x}, nil
	case json.Number:
		return jvalue{kind: jNumber, s: string(x)}, nil
	case string:
		return jvalue{kind: jString, s: x}, nil
	case json.Delim:
		if len(t.segs)-t.root >= maxDepth {
			return jvalue{}, errTooDeep
		}
		switch x {
		case '{':
			return t.object()
		case '[':
			return t.array()
		}
	}
	return jvalue{}, fmt.Errorf("unexpected token %v", tok)
}

func (t *treeReader) object() (jvalue, error) {
	v := jvalue{kind: jObject}
	// Duplicate keys are found by a linear scan in the small objects a
	// schema is made of, and by a set in large ones, so a hostile object
	// of many thousand keys costs linear time.
	var seen map[string]struct{}
	for t.dec.More() {
		tok, err := t.dec.Token()
		if err != nil {
			return jvalue{}, err
		}
		key, ok := tok.(string)
		if !ok {
			return jvalue{}, fmt.Errorf("unexpected token %v", tok)
		}
		t.segs = append(t.segs, key)
		val, err := t.value()
		t.segs = t.segs[:len(t.segs)-1]
		if err != nil {
			return jvalue{}, err
		}
		if seen == nil && len(v.obj) >= 16 {
			seen = make(map[string]struct{}, 2*len(v.obj))
			for _, m := range v.obj {
				seen[m.key] = struct{}{}
			}
		}
		dup := false
		if seen != nil {
			_, dup = seen[key]
			seen[key] = struct{}{}
		} else {
			dup = v.get(key) != nil
		}
		if dup {
			*t.probs = append(*t.probs, Problem{Path: t.pointer(key), Message: fmt.Sprintf("the key %q appears more than once", key)})
			continue
		}
		v.obj = append(v.obj, jmember{key: key, val: val})
	}
	if _, err := t.dec.Token(); err != nil { // the closing '}'
		return jvalue{}, err
	}
	return v, nil
}

func (t *treeReader) array() (jvalue, error) {
	v := jvalue{kind: jArray}
	for t.dec.More() {
		t.segs = append(t.segs, strconv.Itoa(len(v.arr)))
		val, err := t.value()
		t.segs = t.segs[:len(t.segs)-1]
		if err != nil {
			return jvalue{}, err
		}
		v.arr = append(v.arr, val)
	}
	if _, err := t.dec.Token(); err != nil { // the closing ']'
		return jvalue{}, err
	}
	return v, nil
}

// end checks that nothing but white space follows the value.
func (t *treeReader) end() error {
	if _, err := t.dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901 §3):
// "~" becomes "~0" and "/" becomes "~1".
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// syntaxProblem turns a decoding error into a problem a server author can act on.
func syntaxProblem(path string, err error) Problem {
	if errors.Is(err, errTooDeep) {
		return Problem{Path: path, Message: fmt.Sprintf("the JSON is nested more than %d levels deep", maxDepth)}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return Problem{Path: path, Message: "the JSON text ends too early"}
	}
	return Problem{Path: path, Message: "the JSON text is not valid: " + strings.TrimPrefix(err.Error(), "json: ")}
}
