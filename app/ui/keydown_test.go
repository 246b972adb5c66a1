package ui

import (
	"slices"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// jsValue is a JavaScript value for host tests, where go-app's app.Value
// answers nothing: Get, String, Bool and Truthy answer from v, a string,
// a bool or a map[string]any of further values (nil is undefined). Call
// answers undefined, and notes the method's name in calls if it is set.
type jsValue struct {
	app.Value
	v     any
	calls *[]string
}

func js(v any) jsValue { return jsValue{Value: app.Undefined(), v: v} }

func (j jsValue) Call(method string, args ...any) app.Value {
	if j.calls != nil {
		*j.calls = append(*j.calls, method)
	}
	return js(nil)
}

func (j jsValue) Get(p string) app.Value {
	m, _ := j.v.(map[string]any)
	return js(m[p])
}

func (j jsValue) String() string { s, _ := j.v.(string); return s }
func (j jsValue) Bool() bool     { b, _ := j.v.(bool); return b }
func (j jsValue) Truthy() bool   { return j.v != nil && j.v != false && j.v != "" }

// keyDown is a keydown of key in the element whose id is target.
func keyDown(key, target string) app.Event {
	ev := js(map[string]any{"key": key, "target": map[string]any{"id": target}})
	ev.calls = new([]string)
	return app.Event{Value: ev}
}

// defaultPrevented reports whether a handler called preventDefault on
// an event made by keyDown.
func defaultPrevented(e app.Event) bool {
	return slices.Contains(*e.Value.(jsValue).calls, "preventDefault")
}

// Escape in a control is "Skip" until the person changes a field; after
// that a stray Escape (closing a date picker) must not lose the typing.
// On the title, where the widget put focus, it is the second Escape
// meant for the request dismissed before, and skips nothing.
func TestEscapeSkipsUntilAFieldChanges(t *testing.T) {
	f, a, d := mountForm(t, "x", shortSchema)
	f.onKeyDown(d.Context(), keyDown("Enter", f.ids(0).control))
	f.onKeyDown(d.Context(), keyDown("Escape", f.Item.elemID("title")))
	if len(a.sent) != 0 {
		t.Fatalf("Enter, or Escape on the title, sent %+v", a.sent)
	}
	f.onFieldInput("name")(d.Context(), app.Event{Value: app.Undefined()})
	stray := keyDown("Escape", f.ids(0).control)
	f.onKeyDown(d.Context(), stray)
	if len(a.sent) != 0 {
		t.Fatalf("Escape after a field changed sent %+v: the typing is lost", a.sent)
	}
	// The browser still does with it what it would (closing a date picker).
	if defaultPrevented(stray) {
		t.Error("Escape after a field changed was kept from the browser")
	}

	g, b, e := mountForm(t, "x", shortSchema)
	skip := keyDown("Escape", g.ids(0).control)
	g.onKeyDown(e.Context(), skip)
	if len(b.sent) != 1 || b.sent[0].Action != "cancel" {
		t.Fatalf("Escape on an unchanged form sent %+v, want one cancel", b.sent)
	}
	// Used up by the Skip, it is not left to the browser as well, whose
	// own Escape (closing a picker, stopping a load) would act on it too.
	if !defaultPrevented(skip) {
		t.Error("Escape that skipped the request went on to the browser")
	}
}

// A date box holding part of a date gives "" and no input event while
// the rest is typed: noteUnfinished counts it as a change, so Escape no
// longer skips, and the date reads as unfinished, not as missing.
func TestHalfTypedDateIsAChange(t *testing.T) {
	f, a, d := mountForm(t, "x", `{"type":"object","properties":{"day":{"type":"string","format":"date"}},"required":["day"]}`)
	day := f.Item.Form.Field("day")
	half := js(map[string]any{"validity": map[string]any{"badInput": true}})
	if !f.noteUnfinished(day, half) || !f.Item.Draft.Changed["day"] {
		t.Fatalf("a half-typed date is not a change: changed %v", f.Item.Draft.Changed)
	}
	f.onKeyDown(d.Context(), keyDown("Escape", f.ids(0).control))
	if len(a.sent) != 0 {
		t.Fatalf("Escape after half a date was typed sent %+v", a.sent)
	}
	f.check()
	if got, want := f.Item.Draft.Errors["day"], "Finish the date: day, month and year"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	if f.noteUnfinished(day, half) {
		t.Error("the same half date is reported as a change again")
	}
	if f.noteUnfinished(day, js(nil)) || f.Item.Draft.Unfinished["day"] == "" {
		t.Error("a box no longer on the page finished the date")
	}
	whole := js(map[string]any{"validity": map[string]any{"badInput": false}})
	if !f.noteUnfinished(day, whole) || len(f.Item.Draft.Unfinished) != 0 {
		t.Errorf("a date finished is not a change, or stays unfinished: %v", f.Item.Draft.Unfinished)
	}
	if f.noteUnfinished(day, whole) {
		t.Error("the same whole date is reported as a change again")
	}
}

// A half-typed date-time asks for the time as well as the date.
func TestHalfTypedDateTimeWording(t *testing.T) {
	f, _, _ := mountForm(t, "x", `{"type":"object","properties":{"when":{"type":"string","format":"date-time"}}}`)
	f.noteUnfinished(f.Item.Form.Field("when"), js(map[string]any{"validity": map[string]any{"badInput": true}}))
	f.check()
	if got, want := f.Item.Draft.Errors["when"], "Finish the date and the time"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
