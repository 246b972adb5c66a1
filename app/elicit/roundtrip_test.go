package elicit

import (
	"encoding/json"
	"reflect"
	"testing"
)

// checkRoundTrip checks the defaults property on a parsed form: Defaults
// passes Validate (as Go values and after a trip through JSON), and an
// untouched form collects to exactly Defaults. The one allowed failure
// is a required field with no default, which the person must answer.
func checkRoundTrip(t testing.TB, form *Form) {
	t.Helper()
	unanswered := map[string]bool{}
	for _, f := range form.Fields {
		if _, ok := form.Defaults()[f.Key]; f.Required && !ok {
			unanswered[f.Key] = true
		}
	}
	onlyUnanswered := func(what string, errs []FieldError) {
		t.Helper()
		for _, e := range errs {
			if e.Code != CodeRequired || !unanswered[e.Field] {
				t.Errorf("%s: %s: %s (%s)", what, e.Field, e.Code, e.Message)
			}
		}
	}
	defaults := form.Defaults()
	onlyUnanswered("Validate(Defaults())", form.Validate(defaults))

	b, err := json.Marshal(defaults)
	if err != nil {
		t.Fatalf("Defaults does not marshal: %v", err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	onlyUnanswered("Validate(JSON of Defaults())", form.Validate(decoded))

	content, errs := form.Collect(form.Initial(), nil)
	onlyUnanswered("Collect(Initial())", errs)
	if len(unanswered) == 0 && !reflect.DeepEqual(content, defaults) {
		t.Errorf("Collect(Initial()) = %#v, want Defaults() = %#v", content, defaults)
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, schema string }{
		{"all kinds", allKinds},
		{"SEP-1330", sep1330},
		{"SEP-1034", sep1034},
		{"every default", `{"type":"object","properties":{
			"s":{"type":"string","minLength":2,"default":"hello"},
			"e":{"type":"string","format":"email","default":"a@example.com"},
			"u":{"type":"string","format":"uri","default":"urn:isbn:0451450523"},
			"d":{"type":"string","format":"date","default":"2024-02-29"},
			"dt":{"type":"string","format":"date-time","default":"2026-12-02t10:30:00.5z"},
			"p":{"type":"string","pattern":"^\\d+$","default":"42"},
			"i":{"type":"integer","default":-0},
			"big":{"type":"integer","default":9007199254740991},
			"n":{"type":"number","default":1e-7},
			"huge":{"type":"number","default":1e300},
			"b":{"type":"boolean","default":false},
			"sel":{"type":"string","oneOf":[{"const":"a","title":"A"}],"default":"a"},
			"m":{"type":"array","items":{"anyOf":[{"const":"x"},{"const":"y"}]},"default":["y","x"]}
		},"required":["s","e","u","d","dt","p","i","big","n","huge","b","sel","m"]}`},
		{"empty defaults count as none", `{"type":"object","properties":{
			"s":{"type":"string","default":""},
			"sel":{"type":"string","enum":["a"],"default":""},
			"m":{"type":"array","items":{"enum":["a"]},"minItems":1,"default":[]}
		}}`},
		{"required without default", `{"type":"object","properties":{
			"s":{"type":"string"},"t":{"type":"string","default":"x"}},"required":["s","t"]}`},
		{"no properties", `{"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkRoundTrip(t, mustParse(t, tt.schema))
		})
	}
}

// TestDefaultsAfterJSON checks a form that travelled as JSON (a Field's
// multi select default then decodes as []any) gives the same defaults.
func TestDefaultsAfterJSON(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{
		"m":{"type":"array","items":{"enum":["a","b"]},"default":["b"]},
		"b":{"type":"boolean","default":false},
		"n":{"type":"integer","default":3}}}`)
	b, err := json.Marshal(form)
	if err != nil {
		t.Fatal(err)
	}
	var back Form
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := back.Defaults(), form.Defaults(); !reflect.DeepEqual(got, want) {
		t.Errorf("after JSON %#v, before %#v", got, want)
	}
	if got, want := back.Initial(), form.Initial(); !reflect.DeepEqual(got, want) {
		t.Errorf("Initial after JSON %#v, before %#v", got, want)
	}
}
