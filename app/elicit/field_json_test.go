package elicit

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// decodeForm sends form through JSON, as the bridge sends it to a widget.
func decodeForm(t *testing.T, form *Form) *Form {
	t.Helper()
	b, err := json.Marshal(form)
	if err != nil {
		t.Fatal(err)
	}
	var got Form
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("Unmarshal: %v\n%s", err, b)
	}
	return &got
}

// A Form through JSON keeps every field, and each default keeps its
// typed Go value: string, float64, bool, []string by kind.
func TestFormJSONRoundTrip(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{
		"s":{"type":"string","title":"Name","description":"d","minLength":2,"maxLength":9,"default":"hello"},
		"empty":{"type":"string","default":""},
		"code":{"type":"string","pattern":"^[A-Z]{3}$","default":"ABC"},
		"day":{"type":"string","format":"date","default":"2024-02-29"},
		"color":{"type":"string","enum":["red","green"],"enumNames":["Red","Green"],"default":"green"},
		"n":{"type":"number","minimum":-1.5,"maximum":2.5,"default":2.25},
		"negzero":{"type":"number","default":-0},
		"i":{"type":"integer","minimum":0,"default":30},
		"yes":{"type":"boolean","default":true},
		"no":{"type":"boolean","default":false},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":2,"default":["c","a"]},
		"none":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]},"default":[]},
		"plain":{"type":"integer"}
	},"required":["s","yes"]}`)
	got := decodeForm(t, form)
	if len(got.Fields) != len(form.Fields) {
		t.Fatalf("%d fields, want %d", len(got.Fields), len(form.Fields))
	}
	for i := range form.Fields {
		want, have := form.Fields[i], got.Fields[i]
		if reflect.TypeOf(have.Default) != reflect.TypeOf(want.Default) || !reflect.DeepEqual(have.Default, want.Default) {
			t.Errorf("%s: default %#v, want %#v", want.Key, have.Default, want.Default)
		}
		want.pattern, have.pattern = nil, nil
		if !reflect.DeepEqual(have, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", want.Key, have, want)
		}
	}
	if !reflect.DeepEqual(got.Initial(), form.Initial()) {
		t.Errorf("Initial:\n got %v\nwant %v", got.Initial(), form.Initial())
	}
	if !reflect.DeepEqual(got.Defaults(), form.Defaults()) {
		t.Errorf("Defaults:\n got %#v\nwant %#v", got.Defaults(), form.Defaults())
	}
	checkRoundTrip(t, got)

	// The pattern still checks what a person types, compiled once.
	code := got.Field("code")
	if code.pattern == nil {
		t.Error("the pattern was not compiled when decoded")
	}
	in := got.Initial()
	in["code"] = []string{"abc"}
	if _, errs := got.Collect(in, nil); len(errs) != 1 || errs[0].Code != CodePattern {
		t.Errorf("Collect with a value off the pattern: %v", errs)
	}
}

// A field the widget could not show or check is refused when decoded.
func TestFieldJSONRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, field, want string }{
		{"no key", `{"kind":"string","label":"A"}`, "no key"},
		{"unknown kind", `{"key":"a","kind":"colour","label":"A"}`, "kind"},
		{"no kind", `{"key":"a","label":"A"}`, "kind"},
		{"number as text", `{"key":"a","kind":"number","label":"A","default":"3"}`, "default"},
		{"text as number", `{"key":"a","kind":"string","label":"A","default":3}`, "default"},
		{"boolean as text", `{"key":"a","kind":"boolean","label":"A","default":"true"}`, "default"},
		{"list of numbers", `{"key":"a","kind":"multiselect","label":"A","options":[{"value":"x","title":"x"}],"default":[1]}`, "default"},
		{"select without choices", `{"key":"a","kind":"select","label":"A"}`, "choices"},
		{"bad pattern", `{"key":"a","kind":"string","label":"A","pattern":"(?<=x)"}`, "a"},
		{"not an object", `"a"`, "cannot unmarshal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f Form
			err := json.Unmarshal([]byte(`{"fields":[`+tt.field+`]}`), &f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Unmarshal(%s) = %v; want an error naming %q", tt.field, err, tt.want)
			}
		})
	}
}

// decodedDefault by kind, for values as encoding/json gives them.
func TestDecodedDefault(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind Kind
		in   any
		want any
		ok   bool
	}{
		{KindString, "x", "x", true},
		{KindSelect, "", "", true},
		{KindNumber, 1.5, 1.5, true},
		{KindInteger, float64(7), float64(7), true},
		{KindInteger, json.Number("7"), float64(7), true},
		{KindBoolean, false, false, true},
		{KindMultiSelect, []any{"a", "b"}, []string{"a", "b"}, true},
		{KindMultiSelect, []any{}, []string{}, true},
		{KindMultiSelect, []any{"a", 1.0}, nil, false},
		{KindString, nil, nil, true},
		{KindNumber, "1", nil, false},
		{Kind("date"), "x", nil, false},
		{Kind(""), nil, nil, false},
	} {
		got, ok := decodedDefault(tt.kind, tt.in)
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("decodedDefault(%s, %#v) = %#v, %v; want %#v, %v", tt.kind, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
