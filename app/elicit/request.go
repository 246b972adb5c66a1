package elicit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxRequestBytes bounds a whole elicitation/create params object: the
// schema's own limit plus room for the message and _meta.
const MaxRequestBytes = MaxSchemaBytes + 256<<10

// Modes of a Request.
const (
	ModeForm = "form"
	ModeURL  = "url"
)

// Request is a parsed elicitation/create params object, either mode.
type Request struct {
	Mode          string // "form" or "url" (absent is read as form)
	Message       string
	Form          *Form    // form mode
	ElicitationID string   // url mode
	URL           *URLInfo // url mode
}

// ParseRequest checks a whole ElicitRequestParams JSON object. Errors
// are *SchemaError, whose problem paths point into params
// ("/requestedSchema/properties/age/minimum"). _meta and task are not
// read; keys formbridge does not know are ignored.
func ParseRequest(params []byte) (*Request, error) {
	var p schemaParser
	if len(params) > MaxRequestBytes {
		p.add("", "the request is %d bytes; at most %d are allowed", len(params), MaxRequestBytes)
		return nil, p.err()
	}
	top, schema, schemaBytes, err := readParams(params, &p.probs)
	if err != nil {
		p.probs = append(p.probs, syntaxProblem("", err))
		return nil, p.err()
	}
	if top.kind != jObject {
		p.add("", "the params must be a JSON object, not %s", top.typeName())
		return nil, p.err()
	}
	req := &Request{Mode: ModeForm}
	switch m := top.get("mode"); {
	case m == nil:
	case m.kind == jString && (m.s == ModeForm || m.s == ModeURL):
		req.Mode = m.s
	default:
		// Nothing else can be checked against an unknown mode.
		p.add("/mode", `mode must be "form" or "url"`)
		req.Mode = ""
	}
	switch m := top.get("message"); {
	case m == nil:
		p.add("/message", "the request has no message")
	case m.kind != jString:
		p.add("/message", "message must be a string, not %s", m.typeName())
	case utf8.RuneCountInString(m.s) > MaxTextRunes:
		p.add("/message", "message is longer than %d characters", MaxTextRunes)
	case !p.inOrder(m.s, "/message", "message"):
	default:
		req.Message = m.s
	}
	switch req.Mode {
	case ModeForm:
		switch {
		case schema == nil:
			p.add("/requestedSchema", "a form request needs a requestedSchema")
		case schemaBytes > MaxSchemaBytes:
			p.add("/requestedSchema", "the schema is %d bytes; at most %d are allowed", schemaBytes, MaxSchemaBytes)
		default:
			req.Form = p.form(schema, "/requestedSchema")
		}
	case ModeURL:
		switch id := top.get("elicitationId"); {
		case id == nil:
			p.add("/elicitationId", "a URL request needs an elicitationId")
		case id.kind != jString || id.s == "":
			p.add("/elicitationId", "elicitationId must be a non-empty string")
		case len(id.s) > MaxTextRunes:
			p.add("/elicitationId", "elicitationId is longer than %d bytes", MaxTextRunes)
		default:
			req.ElicitationID = id.s
		}
		switch u := top.get("url"); {
		case u == nil:
			p.add("/url", "a URL request needs a url")
		case u.kind != jString:
			p.add("/url", "url must be a string, not %s", u.typeName())
		default:
			info, err := CheckURL(u.s)
			if err != nil {
				p.add("/url", "%v", err)
			}
			req.URL = info
		}
	}
	if len(p.probs) > 0 {
		return nil, p.err()
	}
	return req, nil
}

// paramsKeys are the keys of MCP's ElicitRequestParams.
var paramsKeys = [...]string{"mode", "message", "requestedSchema", "elicitationId", "url", "_meta", "task"}

// caseVariant reports whether key is one of paramsKeys spelled with other
// letter case (as Unicode folds it: "URL", "meſſage"), and which. Such a
// key is refused, not ignored: encoding/json, which the widget decodes
// params with, matches keys regardless of case and takes the last, so
// "_META" after the bridge's own "_meta" would replace the bridge's
// reading of the request, and "URL" the link the bridge checked.
func caseVariant(key string) (string, bool) {
	for _, k := range paramsKeys {
		if key != k && strings.EqualFold(key, k) {
			return k, true
		}
	}
	return "", false
}

// readParams reads the params object into a tree, skipping _meta and
// task (which formbridge passes on but does not interpret), and returns
// requestedSchema apart with the size of its JSON text.
func readParams(params []byte, probs *[]Problem) (top jvalue, schema *jvalue, schemaBytes int64, err error) {
	tr := newTreeReader(bytes.NewReader(params), probs)
	tok, err := tr.dec.Token()
	if err != nil {
		return top, nil, 0, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		top, err = tr.fromToken(tok)
		if err == nil {
			err = tr.end()
		}
		return top, nil, 0, err
	}
	top.kind = jObject
	var sv jvalue
	// Every key is remembered: the bridge reads a repeated key's first
	// value and encoding/json (the widget) its last, so one left unseen
	// would show the person something the bridge never checked.
	seen := make(map[string]struct{})
	for tr.dec.More() {
		tok, err := tr.dec.Token()
		if err != nil {
			return top, nil, 0, err
		}
		key, _ := tok.(string)
		if _, dup := seen[key]; dup {
			*probs = append(*probs, Problem{Path: "/" + escapePointer(key), Message: "the key " + strconv.Quote(key) + " appears more than once"})
		}
		seen[key] = struct{}{}
		if known, ok := caseVariant(key); ok {
			*probs = append(*probs, Problem{Path: "/" + escapePointer(key), Message: "the key " + strconv.Quote(key) +
				" differs from " + strconv.Quote(known) + " only in letter case, which some JSON readers ignore; write " + strconv.Quote(known)})
		}
		switch key {
		case "_meta", "task":
			var raw json.RawMessage
			if err := tr.dec.Decode(&raw); err != nil {
				return top, nil, 0, err
			}
			continue
		case "requestedSchema":
			start := tr.dec.InputOffset()
			tr.segs, tr.root = append(tr.segs[:0], key), 1
			sv, err = tr.value()
			tr.segs, tr.root = tr.segs[:0], 0
			if err != nil {
				return top, nil, 0, err
			}
			schemaBytes = tr.dec.InputOffset() - start
			schema = &sv
			continue
		}
		tr.segs = append(tr.segs[:0], key)
		v, err := tr.value()
		tr.segs = tr.segs[:0]
		if err != nil {
			return top, nil, 0, err
		}
		top.obj = append(top.obj, jmember{key: key, val: v})
	}
	if _, err := tr.dec.Token(); err != nil {
		return top, nil, 0, err
	}
	return top, schema, schemaBytes, tr.end()
}
