package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// item is one pending request as the widget holds it: what the bridge
// sent (the params, and its reading of them in meta), and the person's
// draft answer.
type item struct {
	ID       string
	Seq      int // local number, used to build element ids (server ids are never put in ids)
	Params   wire.ElicitParams
	Meta     wire.RequestMeta
	Received time.Time

	Form      *elicit.Form    // form mode, when the schema could be shown
	URL       *elicit.URLInfo // URL mode, when the link passed the checks
	Problem   string          // why the request cannot be shown or opened, in plain words
	Draft     *draft
	Sensitive []elicit.Sensitivity

	// initial are the values the text controls start from: the defaults
	// or what a reload restored. Text controls render these, never the
	// live draft: the browser owns a text box's value while the person
	// types, and re-setting it from a draft one frame behind would
	// drop keystrokes.
	initial elicit.Inputs

	// rev counts changes made to the item from outside its card (a
	// rejection), so the card re-renders though its pointer is the same.
	rev int

	// left is set once the request has left the queue. Its card may hold
	// it until go-app's next frame, and nothing of it may be stored then.
	left bool
}

// newItem takes a request as the bridge read it: the form (and the
// fields that look like they ask for a secret) or the checked link, from
// meta. The bridge parses and checks every request before sending it, so
// the widget does not ship a schema parser of its own. newItem never
// fails: a request the widget cannot show (no reading, or one it could
// not decode) still needs Decline and Skip, so the server hears back.
func newItem(id string, seq int, params wire.ElicitParams, meta wire.RequestMeta, now time.Time) *item {
	it := &item{ID: id, Seq: seq, Params: params, Meta: meta, Received: now, Draft: &draft{}}
	if params.IsURL() {
		if it.URL = checkedLink(params.URL, meta.Link); it.URL == nil {
			it.Problem = "This link cannot be opened safely, so you can only decline or skip it."
		}
		return it
	}
	if meta.Form != nil {
		it.Form = meta.Form
		it.Sensitive = meta.Sensitive
		it.Draft.Inputs = requiredBooleansAnswered(it.Form, it.Form.Initial())
		it.start()
		return it
	}
	it.Problem = "This request cannot be shown as a form, so you can only decline or skip it."
	return it
}

// checkedLink returns the bridge's reading of url, or nil when there is
// none for this very url, or when url would not open a web page: the
// bridge refuses such links, and checking the scheme again here costs
// nothing, so a link that runs script (javascript:, data:) is never
// opened. Plain http is what the bridge allows only to this machine, with
// a warning the person sees; without that warning it is refused too.
func checkedLink(url string, l *elicit.URLInfo) *elicit.URLInfo {
	if l == nil || l.URL != url || l.Host == "" {
		return nil
	}
	scheme, _, _ := strings.Cut(url, "://")
	switch strings.ToLower(scheme) {
	case "https":
		return l
	case "http":
		for _, w := range l.Warnings {
			if w.Code == "http" {
				return l
			}
		}
	}
	return nil
}

// check computes the draft's problems, so the first render of its form
// already knows whether it can be sent.
func (it *item) check() {
	if it.Form != nil {
		it.Draft.check(it.Form, collectOptions)
	}
}

// start records the draft's values as the ones controls start from.
func (it *item) start() {
	it.initial = make(elicit.Inputs, len(it.Draft.Inputs))
	for k, v := range it.Draft.Inputs {
		it.initial[k] = append([]string(nil), v...)
	}
	it.check()
}

// initialValue is a field's starting value.
func (it *item) initialValue(key string) string {
	if v := it.initial[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Requester is who is asking, for a person to read.
func (it *item) Requester() string {
	if n := it.Meta.Requester.DisplayName(); strings.TrimSpace(n) != "" {
		return n
	}
	return "A connected app"
}

// Created is when the request was made, by the bridge's clock when known.
func (it *item) Created() time.Time {
	if !it.Meta.CreatedAt.IsZero() {
		return it.Meta.CreatedAt
	}
	return it.Received
}

// Summary is the first line of the message, shortened for the queue list.
func (it *item) Summary() string {
	s := strings.TrimSpace(it.Params.Message)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	const max = 80
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:max-1])) + "…"
	}
	if s == "" {
		if it.Params.IsURL() {
			return "Open a link"
		}
		return "A question for you"
	}
	return s
}

// elemID builds an element id local to this item: "fb3-f2-err".
func (it *item) elemID(parts ...string) string {
	id := "fb" + strconv.Itoa(it.Seq)
	for _, p := range parts {
		id += "-" + p
	}
	return id
}

// queue holds the pending items, oldest first.
type queue struct {
	items []*item
}

// find returns the item with id, or nil.
func (q *queue) find(id string) *item {
	for _, it := range q.items {
		if it.ID == id {
			return it
		}
	}
	return nil
}

// add inserts it in order of creation. An item already held (the bridge
// repeats pending requests after a reconnect) is not added twice; the
// held one, with its draft, is returned instead, and reported as old.
func (q *queue) add(it *item) (held *item, added bool) {
	if old := q.find(it.ID); old != nil {
		return old, false
	}
	// After every item created at the same time or earlier (equal times
	// keep arrival order). A plain loop: the queue is short, and the
	// generic slices.Insert costs the wasm 4 KB.
	i := len(q.items)
	for i > 0 && q.items[i-1].Created().After(it.Created()) {
		i--
	}
	q.items = append(q.items, nil)
	copy(q.items[i+1:], q.items[i:])
	q.items[i] = it
	return it, true
}

// remove takes id out of the queue and returns it, or nil.
func (q *queue) remove(id string) *item {
	for i, it := range q.items {
		if it.ID == id {
			q.items = slices.Delete(q.items, i, i+1)
			return it
		}
	}
	return nil
}

// after returns the item to show once id leaves: the next one, else the
// one before, else nil.
func (q *queue) after(id string) *item {
	for i, it := range q.items {
		if it.ID == id {
			switch {
			case i+1 < len(q.items):
				return q.items[i+1]
			case i > 0:
				return q.items[i-1]
			}
			return nil
		}
	}
	if len(q.items) > 0 {
		return q.items[0]
	}
	return nil
}

func (q *queue) len() int { return len(q.items) }
