package wire

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
)

// The widget reads frames with ReadFrame rather than json.Unmarshal into
// these types. Decoding into a struct runs encoding/json's largest
// functions (reflection over each type, then a walk that sets fields by
// reflection), and in the browser every page load starts afresh: V8
// compiles them when first called, on the page's only thread, and soon
// again with its optimizing tier on other threads. Reading the text into
// an interface skips that path, and these readers pick the fields out.
// In four interleaved comparisons of 16 to 20 page loads each on a 2-core
// machine, that made a cold load of a pending form 28 to 100 ms quicker;
// warm loads changed by 1 to 14 ms.
//
// Each reader gives what json.Unmarshal gives for the frames a bridge
// writes, which the tests check. Differences no bridge relies on: keys
// match exactly (encoding/json also takes other letter cases), a number
// read as an int may be written 1.0 or 1e2, and a value of the wrong type
// fails the whole read at once.

// Frame is one frame from the bridge, as the widget reads it: the
// envelope, with params and result kept parsed for the readers below.
type Frame struct {
	// ID is the request's id re-encoded as JSON, to answer it with; nil
	// when the frame has none (a notification) or a null one (an error
	// the bridge could not tie to a request, which the widget ignores).
	ID     []byte
	Method string
	Error  *Error
	id     value
	params value
	result value
}

// IsRequest reports whether f is a request (it expects a response).
func (f *Frame) IsRequest() bool { return f.Method != "" && f.ID != nil }

// IsNotification reports whether f is a notification.
func (f *Frame) IsNotification() bool { return f.Method != "" && f.ID == nil }

// IsResponse reports whether f is a response to an earlier request.
func (f *Frame) IsResponse() bool { return f.Method == "" && f.ID != nil }

// StringID returns the id when it is a string, as the bridge's are.
func (f *Frame) StringID() (string, bool) { return f.id.text() }

// ReadFrame reads one frame.
func ReadFrame(data []byte) (*Frame, error) {
	v, err := parse(data)
	if err != nil {
		return nil, err
	}
	if !v.isObject() {
		return nil, errors.New("wire: a frame is not a JSON object")
	}
	var r reader
	f := &Frame{Method: r.str(v, "method"), id: v.member("id"), params: v.member("params"), result: v.member("result")}
	if s, ok := f.id.text(); ok {
		f.ID = []byte(Quote(s))
	} else if n, ok := f.id.number(); ok {
		f.ID = strconv.AppendFloat(nil, n, 'g', -1, 64)
	} else if !f.id.isNull() {
		// Not a JSON-RPC id at all; kept so the answer can name it.
		f.ID, _ = json.Marshal(f.id.v)
	}
	if e, ok := r.obj(v, "error"); ok {
		f.Error = &Error{Code: r.int(e, "code"), Message: r.str(e, "message"), Data: e.member("data").v}
	}
	if r.err != nil {
		return nil, r.err
	}
	return f, nil
}

// HelloResult reads hello's result.
func (f *Frame) HelloResult() (HelloResult, error) {
	var r reader
	v := f.result
	h := HelloResult{Channel: r.str(v, "channel"), Pending: r.int(v, "pending")}
	r.implementation(v, "serverInfo", &h.ServerInfo)
	return h, r.err
}

// ElicitParams reads an elicitation/create's params, and the bridge's
// RequestMeta in them: zero, with false, when there is none or it cannot
// be read (as ElicitParams.RequestMeta). The raw parts, RequestedSchema
// and Meta, are left out: the widget renders from the bridge's reading.
func (f *Frame) ElicitParams() (ElicitParams, RequestMeta, bool, error) {
	var r reader
	v := f.params
	p := ElicitParams{
		Mode:          r.str(v, "mode"),
		Message:       r.str(v, "message"),
		ElicitationID: r.str(v, "elicitationId"),
		URL:           r.str(v, "url"),
	}
	if r.err == nil && !v.isNull() && !v.isObject() {
		r.fail("params", "an object")
	}
	metas, _ := r.obj(v, "_meta")
	if r.err != nil {
		return p, RequestMeta{}, false, r.err
	}
	if !metas.member(MetaKey).isObject() {
		return p, RequestMeta{}, false, nil
	}
	m, err := readRequestMeta(metas.member(MetaKey))
	if err != nil {
		return p, RequestMeta{}, false, nil // as RequestMeta does: no usable reading
	}
	return p, m, true, nil
}

// SettledParams reads MethodSettled's params.
func (f *Frame) SettledParams() (SettledParams, error) {
	var r reader
	v := f.params
	p := SettledParams{RequestID: r.str(v, "requestId"), Outcome: r.str(v, "outcome")}
	errs := r.arr(v, "errors")
	if errs != nil {
		p.Errors = make([]elicit.FieldError, 0, len(errs))
	}
	for _, e := range errs {
		p.Errors = append(p.Errors, elicit.FieldError{Field: r.str(e, "field"), Code: r.str(e, "code"), Message: r.str(e, "message")})
	}
	return p, r.err
}

// CompleteParams reads MethodComplete's params.
func (f *Frame) CompleteParams() (CompleteParams, error) {
	var r reader
	return CompleteParams{ElicitationID: r.str(f.params, "elicitationId")}, r.err
}

func readRequestMeta(v value) (RequestMeta, error) {
	var r reader
	var m RequestMeta
	r.implementation(v, "requester", &m.Requester)
	r.time(v, "createdAt", &m.CreatedAt)
	r.time(v, "expiresAt", &m.ExpiresAt)
	if form, ok := r.obj(v, "form"); ok {
		m.Form = &elicit.Form{}
		fields := r.arr(form, "fields")
		if fields != nil {
			m.Form.Fields = make([]elicit.Field, 0, len(fields))
		}
		for _, fv := range fields {
			m.Form.Fields = append(m.Form.Fields, r.field(fv))
		}
	}
	sensitive := r.arr(v, "sensitive")
	if sensitive != nil {
		m.Sensitive = make([]elicit.Sensitivity, 0, len(sensitive))
	}
	for _, s := range sensitive {
		m.Sensitive = append(m.Sensitive, elicit.Sensitivity{Field: r.str(s, "field"), What: r.str(s, "what"), Reason: r.str(s, "reason")})
	}
	if l, ok := r.obj(v, "link"); ok {
		m.Link = &elicit.URLInfo{
			URL:       r.str(l, "url"),
			Scheme:    r.str(l, "scheme"),
			Host:      r.str(l, "host"),
			Domain:    r.str(l, "domain"),
			ASCIIHost: r.str(l, "asciiHost"),
			Port:      r.str(l, "port"),
		}
		warnings := r.arr(l, "warnings")
		if warnings != nil {
			m.Link.Warnings = make([]elicit.URLWarning, 0, len(warnings))
		}
		for _, w := range warnings {
			m.Link.Warnings = append(m.Link.Warnings, elicit.URLWarning{Code: r.str(w, "code"), Message: r.str(w, "message")})
		}
	}
	return m, r.err
}

// reader picks typed fields out of values, keeping the first problem.
type reader struct{ err error }

func (r *reader) fail(key, want string) {
	if r.err == nil {
		r.err = errors.New("wire: " + key + " is not " + want)
	}
}

func (r *reader) str(v value, key string) string {
	m := v.member(key)
	s, ok := m.text()
	if !ok && !m.isNull() {
		r.fail(key, "a string")
	}
	return s
}

func (r *reader) boolean(v value, key string) bool {
	m := v.member(key)
	b, ok := m.boolean()
	if !ok && !m.isNull() {
		r.fail(key, "a boolean")
	}
	return b
}

func (r *reader) floatPtr(v value, key string) *float64 {
	m := v.member(key)
	if m.isNull() {
		return nil
	}
	f, ok := m.number()
	if !ok {
		r.fail(key, "a number")
	}
	return &f
}

func (r *reader) intPtr(v value, key string) *int {
	f := r.floatPtr(v, key)
	if f == nil {
		return nil
	}
	n := int(*f)
	if float64(n) != *f {
		r.fail(key, "an integer")
	}
	return &n
}

func (r *reader) int(v value, key string) int {
	if n := r.intPtr(v, key); n != nil {
		return *n
	}
	return 0
}

// obj returns the member key when it is an object; ok is false when it
// is null or missing.
func (r *reader) obj(v value, key string) (m value, ok bool) {
	m = v.member(key)
	if m.isNull() {
		return m, false
	}
	if !m.isObject() {
		r.fail(key, "an object")
		return m, false
	}
	return m, true
}

// arr returns the member key's elements: nil when it is null, and not
// nil when it is an array, even an empty one.
func (r *reader) arr(v value, key string) []value {
	m := v.member(key)
	a, ok := m.elems()
	if !ok && !m.isNull() {
		r.fail(key, "an array")
	}
	return a
}

func (r *reader) implementation(v value, key string, i *Implementation) {
	if m, ok := r.obj(v, key); ok {
		*i = Implementation{Name: r.str(m, "name"), Title: r.str(m, "title"), Version: r.str(m, "version")}
	}
}

// time reads a time as time.Time's UnmarshalJSON does.
func (r *reader) time(v value, key string, t *time.Time) {
	m := v.member(key)
	if m.isNull() {
		return
	}
	if s, ok := m.text(); !ok || t.UnmarshalText([]byte(s)) != nil {
		r.fail(key, "an RFC 3339 time")
	}
}

func (r *reader) field(v value) elicit.Field {
	f := elicit.Field{
		Key:         r.str(v, "key"),
		Kind:        elicit.Kind(r.str(v, "kind")),
		Title:       r.str(v, "title"),
		Label:       r.str(v, "label"),
		Description: r.str(v, "description"),
		Required:    r.boolean(v, "required"),
		Format:      elicit.Format(r.str(v, "format")),
		MinLength:   r.intPtr(v, "minLength"),
		MaxLength:   r.intPtr(v, "maxLength"),
		Pattern:     r.str(v, "pattern"),
		Minimum:     r.floatPtr(v, "minimum"),
		Maximum:     r.floatPtr(v, "maximum"),
		MinItems:    r.intPtr(v, "minItems"),
		MaxItems:    r.intPtr(v, "maxItems"),
		Default:     v.member("default").v,
	}
	options := r.arr(v, "options")
	if options != nil {
		f.Options = make([]elicit.Option, 0, len(options))
	}
	for _, o := range options {
		f.Options = append(f.Options, elicit.Option{Value: r.str(o, "value"), Title: r.str(o, "title")})
	}
	if r.err == nil {
		if err := f.Prepare(); err != nil {
			r.err = err
		}
	}
	return f
}

// Quote writes s as a JSON string. Ids and tokens are plain ASCII and are
// written as they are; anything else is escaped as encoding/json escapes
// it (see quoteEscaped).
func Quote(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return quoteEscaped(s)
		}
	}
	return `"` + s + `"`
}

// quoteEscaped is the rare case of Quote.
func quoteEscaped(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
