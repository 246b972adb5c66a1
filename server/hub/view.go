package hub

import (
	"bytes"
	"encoding/json"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// parsed is one params text as the bridge read it: the request answers
// are checked against, and its wire.RequestView, which widgets render
// from (they do not parse schemas themselves), encoded once. Requests
// with the same params share one (the parse cache); it never changes.
type parsed struct {
	req *elicit.Request
	// view is the RequestView's members as JSON without the braces
	// (`"form":{…},"sensitive":[…]` or `"link":{…}`), spliced into each
	// request's _meta after its own requester and times.
	view []byte
	// patternBytes estimates the memory the form's compiled patterns
	// hold (elicit.PatternBytes), counted with each request's bytes.
	patternBytes int
}

// newParsed computes the view of a request ParseRequest accepted.
func newParsed(req *elicit.Request) (*parsed, error) {
	v := wire.RequestView{Form: req.Form, Link: req.URL}
	if req.Form != nil {
		v.Sensitive = req.Form.Sensitive()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The frame is read by a JSON parser, never put in a page: "<" in a
	// description stays one byte rather than six, so a schema full of
	// them cannot make the frame outgrow what a widget reads.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSpace(buf.Bytes()) // {…}
	return &parsed{req: req, view: bytes.Clone(b[1 : len(b)-1]), patternBytes: elicit.PatternBytes(req.Form)}, nil
}

// form is the form answers are checked against; nil in URL mode.
func (p *parsed) form() *elicit.Form { return p.req.Form }

// isURL reports whether the request asks the person to open a link.
func (p *parsed) isURL() bool { return p.req.Mode == elicit.ModeURL }

// elicitationID is the server's id of a URL-mode request.
func (p *parsed) elicitationID() string { return p.req.ElicitationID }
