package ui

import (
	"strings"
	"testing"

	"github.com/formbridge/formbridge/app/elicit"
)

// TestRequiredShownOnlyOnceChangedOrSent: leaving an empty required
// field the person never changed shows nothing; after they changed it,
// or tried to send, its problem shows.
func TestRequiredShownOnlyOnceChangedOrSent(t *testing.T) {
	req, err := elicit.ParseRequest([]byte(`{"message":"m","requestedSchema":{"type":"object","properties":{
		"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := &draft{}
	d.check(req.Form, nil)
	if d.touch("a") || d.shownError("a") != "" {
		t.Fatalf("leaving an untouched field shows %q", d.shownError("a"))
	}
	d.set("a", "x")
	d.set("a", "")
	d.check(req.Form, nil)
	if d.shownError("a") != "" {
		t.Fatalf("error shown while still in the field: %q", d.shownError("a"))
	}
	if !d.touch("a") || d.shownError("a") == "" {
		t.Fatal("leaving an erased required field shows no error")
	}
	if d.shownError("b") != "" {
		t.Fatalf("the untouched field shows %q before Send", d.shownError("b"))
	}
	d.Submitted = true
	if d.shownError("b") == "" {
		t.Fatal("Send did not show the untouched field's error")
	}
}

// An unfinished date box is an error in its place among the others, in
// its own words, even when its field is optional (its value reads "").
func TestUnfinishedDateIsAnError(t *testing.T) {
	req, err := elicit.ParseRequest([]byte(`{"message":"m","requestedSchema":{"type":"object","properties":{
		"a":{"type":"string"},"day":{"type":"string","format":"date"},"c":{"type":"integer"}},"required":["a"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := &draft{Inputs: elicit.Inputs{"c": {"x"}}, Unfinished: map[string]string{"day": "Finish the date"}}
	if _, ok := d.check(req.Form, nil); ok {
		t.Fatal("a form with a half-typed date checks as valid")
	}
	if got := strings.Join(d.Order, ","); got != "a,day,c" || d.Errors["day"] != "Finish the date" {
		t.Errorf("errors %v in order %s; want a, day (its own words), c", d.Errors, got)
	}
	delete(d.Unfinished, "day")
	d.Inputs = elicit.Inputs{"a": {"x"}}
	if _, ok := d.check(req.Form, nil); !ok {
		t.Errorf("finished, the form still has errors %v", d.Errors)
	}
}

// A date-time default in RFC 3339's lower-case form shows in its box
// (which takes no "t" or "z") as the upper-case one would; written as
// given, the box stayed empty while Send sent the default.
func TestLowerCaseDateTimeDefaultShows(t *testing.T) {
	if got, want := localInputValue("2026-12-02t10:30:00z"), localInputValue("2026-12-02T10:30:00Z"); got != want || got != "2026-12-02T10:30" {
		t.Errorf("lower case shows %q, upper case %q; want 2026-12-02T10:30", got, want)
	}
}

// A multiple choice's checkbox adds its value when checked and takes it
// out when cleared, never twice, keeping the others in the order chosen.
func TestToggleChoices(t *testing.T) {
	d := &draft{}
	d.toggle("k", "a", true)
	d.toggle("k", "b", true)
	d.toggle("k", "a", true) // a second check event for the same box
	d.toggle("k", "c", true)
	d.toggle("k", "b", false)
	if got := strings.Join(d.Inputs["k"], ","); got != "a,c" || !d.Changed["k"] {
		t.Errorf("values %q (changed %v), want a,c, changed", got, d.Changed["k"])
	}
	if !d.has("k", "c") || d.has("k", "b") {
		t.Errorf("has c = %v, has b = %v; want true, false", d.has("k", "c"), d.has("k", "b"))
	}
}

// The bridge's objections show as it gave them: the first for a field
// it objects to twice, and, as after a Send, every other problem too.
func TestRejectKeepsFirstObjection(t *testing.T) {
	d := &draft{Sent: "accept", Errors: map[string]string{"b": "This is required"}}
	d.reject([]elicit.FieldError{{Field: "a", Message: "Too short"}, {Field: "a", Message: "Use letters only"}})
	if got := d.shownError("a"); got != "Too short" {
		t.Errorf("field a shows %q, want the bridge's first objection", got)
	}
	if got := d.shownError("b"); got != "This is required" || d.Sent != "" {
		t.Errorf("field b shows %q (sent %q); want its own problem, and the form open again", got, d.Sent)
	}
}
