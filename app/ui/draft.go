package ui

import (
	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// draft is the person's answer in progress for one request. It lives on
// the item rather than on the form component because go-app reuses a
// mounted component when the person switches requests: keeping the
// draft with its request keeps answers from leaking between forms.
type draft struct {
	Inputs  elicit.Inputs   `json:"inputs,omitempty"`
	Touched map[string]bool `json:"touched,omitempty"` // fields the person has left
	// Changed are the fields the person has changed. Leaving a field they
	// never changed says nothing: a person tabbing through, or heading for
	// Decline, is not told "This is required" before trying to send.
	Changed map[string]bool `json:"changed,omitempty"`

	// Submitted is set once the person tried to send: every error shows.
	Submitted bool `json:"-"`
	// Errors are the current problems, by field key, from Form.Collect.
	Errors map[string]string `json:"-"`
	// Order lists the keys of Errors in form order.
	Order []string `json:"-"`
	// Rejected are the bridge's errors for the last answer sent; each
	// stays until the person changes that field.
	Rejected map[string]string `json:"-"`
	// Unfinished are the date boxes showing part of a date, by key, with
	// what to say: a browser gives such a box's value as "", so the
	// answer would read as none (see requestCard.noteUnfinished).
	Unfinished map[string]string `json:"-"`

	// Sent is the action sent and not yet confirmed ("" when none);
	// Opened is set once a URL-mode link was opened. Neither survives a
	// reload: a request the bridge sends again never got its answer.
	Sent   string `json:"-"`
	Opened bool   `json:"-"`
	// lastSent is the answer last sent, for sending again when the
	// connection dropped before the bridge said it arrived; resent is
	// set once it went again, when the first may have arrived after all.
	lastSent *wire.ElicitResult
	resent   bool
	// SendError says why the last send failed (offline).
	SendError string `json:"-"`
}

// draftKey is the sessionStorage key of a request's draft. Session
// storage is per tab, so a draft survives a reload but not the tab.
// Frames of one origin in one tab share it (a chat app's widget mounted
// again for another conversation's channel): the key names the channel
// (draftChannel), so that one channel's Synced removes only its own.
func draftKey(requestID string) string { return draftPrefix() + requestID }

// draftPrefix starts the keys of the drafts of this page's channel.
func draftPrefix() string {
	if draftChannel == "" {
		return "formbridge.draft."
	}
	return "formbridge.draft." + draftChannel + "/"
}

// draftChannel is the channel the bridge named in hello ("" before it):
// one widget per page, on one channel.
var draftChannel string

// linkKey keeps the link read from the fragment for reloads of this tab,
// since the fragment is removed from the address bar once read.
const linkKey = "formbridge.link"

// value is the single value of a field ("" when empty).
func (d *draft) value(key string) string {
	if v := d.Inputs[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// set replaces a field's values and forgets the bridge's objection to
// the old ones.
func (d *draft) set(key string, vals ...string) {
	if d.Inputs == nil {
		d.Inputs = elicit.Inputs{}
	}
	if d.Changed == nil {
		d.Changed = map[string]bool{}
	}
	d.Inputs[key] = vals
	d.Changed[key] = true
	delete(d.Rejected, key)
}

// toggle adds or removes one value of a multi select.
func (d *draft) toggle(key, val string, on bool) {
	cur := d.Inputs[key]
	out := make([]string, 0, len(cur)+1)
	for _, v := range cur {
		if v != val {
			out = append(out, v)
		}
	}
	if on {
		out = append(out, val)
	}
	d.set(key, out...)
}

// has reports whether a multi select holds val.
func (d *draft) has(key, val string) bool {
	for _, v := range d.Inputs[key] {
		if v == val {
			return true
		}
	}
	return false
}

// touch records that the person left a field they changed, so its
// problems show from now on. It reports whether that is new.
func (d *draft) touch(key string) bool {
	if d.Touched[key] || !d.Changed[key] {
		return false
	}
	if d.Touched == nil {
		d.Touched = map[string]bool{}
	}
	d.Touched[key] = true
	return true
}

// check recomputes the errors of the inputs against form. A date box
// left half filled in (Unfinished) is an error of its own, whatever its
// empty value would have said.
func (d *draft) check(form *elicit.Form, opts *elicit.CollectOptions) (map[string]any, bool) {
	in := d.Inputs
	if len(d.Unfinished) > 0 {
		// Checked as a date that is not one, so its error comes in its
		// place among the others; its words are Unfinished's.
		in = make(elicit.Inputs, len(d.Inputs)+len(d.Unfinished))
		for k, v := range d.Inputs {
			in[k] = v
		}
		for k := range d.Unfinished {
			in[k] = []string{"-"}
		}
	}
	content, errs := form.Collect(in, opts)
	d.Errors = make(map[string]string, len(errs))
	d.Order = d.Order[:0]
	for _, e := range errs {
		if _, dup := d.Errors[e.Field]; dup {
			continue
		}
		if m := d.Unfinished[e.Field]; m != "" {
			e.Message = m
		}
		d.Errors[e.Field] = e.Message
		d.Order = append(d.Order, e.Field)
	}
	return content, len(errs) == 0
}

// shownError is the message to show next to a field now: the bridge's
// objection, else the field's own problem once the person has left the
// field or tried to send.
func (d *draft) shownError(key string) string {
	if m := d.Rejected[key]; m != "" {
		return m
	}
	if d.Submitted || d.Touched[key] {
		return d.Errors[key]
	}
	return ""
}

// reject records the bridge's errors for the answer sent.
func (d *draft) reject(errs []elicit.FieldError) {
	d.Rejected = make(map[string]string, len(errs))
	for _, e := range errs {
		if _, dup := d.Rejected[e.Field]; !dup {
			d.Rejected[e.Field] = e.Message
		}
	}
	d.Submitted = true
	d.Sent = ""
}
