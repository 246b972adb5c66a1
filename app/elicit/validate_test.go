package elicit

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// allKinds has one field of every kind, each with constraints.
const allKinds = `{"type":"object","properties":{
	"name":{"type":"string","minLength":2,"maxLength":5},
	"email":{"type":"string","format":"email"},
	"site":{"type":"string","format":"uri"},
	"day":{"type":"string","format":"date"},
	"at":{"type":"string","format":"date-time"},
	"code":{"type":"string","pattern":"^[A-Z]{3}$"},
	"age":{"type":"integer","minimum":1,"maximum":100},
	"ratio":{"type":"number","minimum":0,"maximum":1},
	"ok":{"type":"boolean"},
	"color":{"type":"string","enum":["red","green"]},
	"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2}
},"required":["name","ok"]}`

func mustParse(t testing.TB, schema string) *Form {
	t.Helper()
	f, err := Parse([]byte(schema))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

// codes returns "field:code" for each error, in order.
func codes(errs []FieldError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+":"+e.Code)
	}
	return out
}

func TestValidate(t *testing.T) {
	t.Parallel()
	form := mustParse(t, allKinds)
	base := func(extra map[string]any) map[string]any {
		m := map[string]any{"name": "Ann", "ok": false}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		content map[string]any
		want    []string
	}{
		{"minimal", base(nil), nil},
		{"everything valid", base(map[string]any{
			"email": "ann@example.com", "site": "https://example.com/x", "day": "2026-02-28",
			"at": "2026-12-02T10:30:00+01:00", "code": "ABC", "age": float64(42), "ratio": 0.5,
			"color": "green", "size": "l", "tags": []any{"c", "a"},
		}), nil},
		{"json.Number and []string", base(map[string]any{"age": json.Number("7"), "ratio": json.Number("1e-1"), "tags": []string{"b"}}), nil},
		{"Go int", base(map[string]any{"age": 7}), nil},
		{"missing required", map[string]any{}, []string{"name:required", "ok:required"}},
		{"empty required string", base(map[string]any{"name": ""}), []string{"name:required"}},
		{"unknown keys sorted", base(map[string]any{"zz": 1, "aa": 2}), []string{"aa:unknown_key", "zz:unknown_key"}},
		{"string wrong type", base(map[string]any{"name": 5.0}), []string{"name:wrong_type"}},
		{"null is wrong type", base(map[string]any{"email": nil, "age": nil}), []string{"email:wrong_type", "age:wrong_type"}},
		{"too short", base(map[string]any{"name": "A"}), []string{"name:too_short"}},
		{"minLength fits", base(map[string]any{"name": "Ab"}), nil},
		{"too long counts characters", base(map[string]any{"name": "ÅÅÅÅÅÅ"}), []string{"name:too_long"}},
		{"five runes fit", base(map[string]any{"name": "ÅÅÅÅÅ"}), nil},
		{"email", base(map[string]any{"email": "ann@"}), []string{"email:format"}},
		{"uri without scheme", base(map[string]any{"site": "example.com"}), []string{"site:format"}},
		{"impossible date", base(map[string]any{"day": "2026-02-30"}), []string{"day:format"}},
		{"date-time without offset", base(map[string]any{"at": "2026-12-02T10:30:00"}), []string{"at:format"}},
		{"pattern", base(map[string]any{"code": "abc"}), []string{"code:pattern"}},
		{"not integer", base(map[string]any{"age": 1.5}), []string{"age:not_integer"}},
		{"too small", base(map[string]any{"age": 0.0}), []string{"age:too_small"}},
		{"too large", base(map[string]any{"ratio": json.Number("1.01")}), []string{"ratio:too_large"}},
		{"minimum and maximum fit", base(map[string]any{"age": 1.0, "ratio": 1.0}), nil},
		{"number as string", base(map[string]any{"age": "5"}), []string{"age:wrong_type"}},
		{"NaN", base(map[string]any{"ratio": math.NaN()}), []string{"ratio:wrong_type"}},
		{"bad json.Number", base(map[string]any{"ratio": json.Number("Inf")}), []string{"ratio:wrong_type"}},
		{"boolean as string", base(map[string]any{"ok": "true"}), []string{"ok:wrong_type"}},
		{"not an option", base(map[string]any{"color": "blue"}), []string{"color:not_an_option"}},
		{"title is not the value", base(map[string]any{"size": "Small"}), []string{"size:not_an_option"}},
		{"empty select", base(map[string]any{"color": ""}), []string{"color:not_an_option"}},
		{"too many", base(map[string]any{"tags": []any{"a", "b", "c"}}), []string{"tags:too_many"}},
		{"too few", base(map[string]any{"tags": []any{}}), []string{"tags:too_few"}},
		{"duplicate choice", base(map[string]any{"tags": []any{"a", "a"}}), []string{"tags:duplicate"}},
		{"choice not an option", base(map[string]any{"tags": []any{"z"}}), []string{"tags:not_an_option"}},
		{"array of numbers", base(map[string]any{"tags": []any{1.0}}), []string{"tags:wrong_type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := form.Validate(tt.content)
			if got := codes(errs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate = %q, want %q", got, tt.want)
			}
			for _, e := range errs {
				if e.Message == "" {
					t.Errorf("%s: empty message", e.Field)
				}
			}
		})
	}
}

func TestValidateNilForm(t *testing.T) {
	t.Parallel()
	var f *Form
	if f.Field("x") != nil || len(f.Defaults()) != 0 || len(f.Initial()) != 0 || f.Sensitive() != nil {
		t.Error("a nil form has no fields, defaults or warnings")
	}
	if content, errs := f.Collect(Inputs{"x": {"1"}}, nil); len(content) != 0 || errs != nil {
		t.Errorf("Collect on a nil form = %v, %v", content, errs)
	}
	if got := codes(f.Validate(map[string]any{"x": 1})); !reflect.DeepEqual(got, []string{"x:unknown_key"}) {
		t.Errorf("got %q", got)
	}
}

func TestIsJSONNumber(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"0": true, "-1": true, "1.5": true, "1e3": true, "2E-7": true, "-0.0": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "Inf": false,
		"0x1p3": false, "1_000": false, "+1": false, " 1": false, "NaN": false,
	} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestValidateLargeInput checks that content far beyond any form is
// answered quickly and with bounded errors.
func TestValidateLargeInput(t *testing.T) {
	t.Parallel()
	form := mustParse(t, allKinds)
	content := map[string]any{"name": "Ann", "ok": true}
	for i := range 10000 {
		content["x"+strconv.Itoa(i)] = i
	}
	tags := make([]any, 200000)
	for i := range tags {
		tags[i] = "a"
	}
	content["tags"] = tags
	errs := form.Validate(content)
	if len(errs) != 1+maxUnknownKeyErrors || errs[0].Code != CodeDuplicate {
		t.Errorf("got %d errors, first %+v; want a duplicate then %d unknown keys", len(errs), errs[0], maxUnknownKeyErrors)
	}
}

// TestValidateSafeIntegers checks that an integer field with no bounds
// still refuses whole numbers a float64 cannot hold exactly (past 2^53),
// and takes those at the edge.
func TestValidateSafeIntegers(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{"n":{"type":"integer"}}}`)
	for _, tt := range []struct {
		n    json.Number
		want []string
	}{
		{"9007199254740991", nil},
		{"-9007199254740991", nil},
		{"9007199254740992", []string{"n:too_large"}},
		{"-9007199254740992", []string{"n:too_small"}},
	} {
		if got := codes(form.Validate(map[string]any{"n": tt.n})); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Validate(%s) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestValidateMinItems checks minItems above one against a list that
// has some choices, but too few.
func TestValidateMinItems(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":2}}}`)
	if got, want := codes(form.Validate(map[string]any{"tags": []any{"a"}})), []string{"tags:too_few"}; !reflect.DeepEqual(got, want) {
		t.Errorf("one of minItems 2: got %q, want %q", got, want)
	}
	if got := codes(form.Validate(map[string]any{"tags": []any{"a", "b"}})); got != nil {
		t.Errorf("two of minItems 2: got %q, want none", got)
	}
}

// TestValidateEmptyList checks an empty list: missing when the field is
// required, fine when it is optional, even with minItems 0.
func TestValidateEmptyList(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{
		"must":{"type":"array","items":{"type":"string","enum":["a","b"]}},
		"may":{"type":"array","items":{"type":"string","enum":["a","b"]}},
		"zero":{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":0}
	},"required":["must"]}`)
	got := codes(form.Validate(map[string]any{"must": []any{}, "may": []any{}, "zero": []string{}}))
	if want := []string{"must:required"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
