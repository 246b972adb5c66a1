package elicit

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// problemPaths parses schema and returns the JSON paths of its problems,
// failing the test when the error is not a *SchemaError.
func problemPaths(t *testing.T, err error) []string {
	t.Helper()
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *SchemaError", err, err)
	}
	paths := make([]string, len(se.Problems))
	for i, p := range se.Problems {
		if p.Message == "" {
			t.Errorf("problem at %q has no message", p.Path)
		}
		paths[i] = p.Path
	}
	return paths
}

func TestParseOrderAndLabels(t *testing.T) {
	t.Parallel()
	form, err := Parse([]byte(`{"type":"object","properties":{
		"zeta":{"type":"string"},
		"alpha":{"type":"integer","title":"How many?"},
		"firstName":{"type":"string"},
		"mid":{"type":"boolean"},
		"zeroWidth":{"type":"string","title":"\u200b\u200b "}
	},"required":["alpha"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var keys, labels []string
	for _, f := range form.Fields {
		keys = append(keys, f.Key)
		labels = append(labels, f.Label)
	}
	if want := []string{"zeta", "alpha", "firstName", "mid", "zeroWidth"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys = %q, want the text's order %q", keys, want)
	}
	if want := []string{"Zeta", "How many?", "First name", "Mid", "Zero width"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
	if !form.Field("alpha").Required || form.Field("zeta").Required {
		t.Errorf("required: alpha=%v zeta=%v, want true false", form.Field("alpha").Required, form.Field("zeta").Required)
	}
}

// TestParseRefusals lists every kind of schema formbridge refuses, each
// with the JSON path the problem must point at.
func TestParseRefusals(t *testing.T) {
	t.Parallel()
	prop := func(s string) string { return `{"type":"object","properties":{"f":` + s + `}}` }
	tests := []struct {
		name, schema string
		paths        []string
	}{
		{"not JSON", `{"type":`, []string{""}},
		{"trailing data", `{"type":"object"} x`, []string{""}},
		{"root not object", `[]`, []string{""}},
		{"root type missing", `{"properties":{}}`, []string{""}},
		{"root type array", `{"type":"array"}`, []string{"/type"}},
		{"root allOf", `{"type":"object","allOf":[]}`, []string{"/allOf"}},
		{"properties not object", `{"type":"object","properties":[]}`, []string{"/properties"}},
		{"nested object", prop(`{"type":"object","properties":{}}`), []string{"/properties/f/type"}},
		{"array of objects", prop(`{"type":"array","items":{"type":"object"}}`), []string{"/properties/f/items/type"}},
		{"ref", prop(`{"$ref":"#/defs/x","type":"string"}`), []string{"/properties/f/$ref"}},
		{"unknown type", prop(`{"type":"date"}`), []string{"/properties/f/type"}},
		{"type list", prop(`{"type":["string","null"]}`), []string{"/properties/f/type"}},
		{"no type", prop(`{"title":"x"}`), []string{"/properties/f"}},
		{"unknown format", prop(`{"type":"string","format":"ipv4"}`), []string{"/properties/f/format"}},
		{"enumNames length", prop(`{"type":"string","enum":["a","b"],"enumNames":["A"]}`), []string{"/properties/f/enumNames"}},
		{"default wrong type", prop(`{"type":"integer","default":"3"}`), []string{"/properties/f/default"}},
		{"default outside", prop(`{"type":"integer","minimum":1,"maximum":5,"default":9}`), []string{"/properties/f/default"}},
		{"default not an option", prop(`{"type":"string","enum":["a"],"default":"b"}`), []string{"/properties/f/default"}},
		{"default bad email", prop(`{"type":"string","format":"email","default":"nope"}`), []string{"/properties/f/default"}},
		{"min over max", prop(`{"type":"number","minimum":5,"maximum":1}`), []string{"/properties/f/minimum"}},
		{"minLength over maxLength", prop(`{"type":"string","minLength":5,"maxLength":1}`), []string{"/properties/f/minLength"}},
		{"bad pattern", prop(`{"type":"string","pattern":"(?=x)"}`), []string{"/properties/f/pattern"}},
		{"duplicate option", prop(`{"type":"string","enum":["a","a"]}`), []string{"/properties/f/enum"}},
		{"duplicate const", prop(`{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"a","title":"B"}]}`), []string{"/properties/f/oneOf"}},
		{"required not a property", `{"type":"object","properties":{},"required":["x"]}`, []string{"/required/0"}},
		{"duplicate key", `{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"string"}}}`, []string{"/properties/a"}},
		{"duplicate key in a large object", `{"type":"object","properties":{` + strings.Join(manyBooleans(17), ",") + `,"p16":{"type":"string"}}}`, []string{"/properties/p16"}},
		{"negative minLength", prop(`{"type":"string","minLength":-1}`), []string{"/properties/f/minLength"}},
		{"escaped key path", `{"type":"object","properties":{"a/b~c":{"type":"object"}}}`, []string{"/properties/a~1b~0c/type"}},
		{"keyword of another kind", prop(`{"type":"string","minimum":1}`), []string{"/properties/f/minimum"}},
		{"unsupported keyword", prop(`{"type":"string","const":"x"}`), []string{"/properties/f/const"}},
		{"exclusive bound", prop(`{"type":"number","exclusiveMinimum":0}`), []string{"/properties/f/exclusiveMinimum"}},
		{"required inside a property", prop(`{"type":"string","required":true}`), []string{"/properties/f/required"}},
		{"properties inside a string", prop(`{"type":"string","properties":{}}`), []string{"/properties/f/properties"}},
		{"property not an object", prop(`"string"`), []string{"/properties/f"}},
		{"empty property name", `{"type":"object","properties":{"":{"type":"string"}}}`, []string{"/properties/"}},
		{"too many options in all", `{"type":"object","properties":{` + strings.Join(manySelects(3, MaxOptions), ",") + `}}`, []string{"/properties"}},
		{"title reversed", prop(`{"type":"string","title":"Pay\u202eroll"}`), []string{"/properties/f/title"}},
		{"description embedded", prop(`{"type":"string","description":"x\u202by"}`), []string{"/properties/f/description"}},
		{"option reversed", prop(`{"type":"string","enum":["x\u202egnp.exe"]}`), []string{"/properties/f/enum/0"}},
		{"option title reversed", prop(`{"type":"string","oneOf":[{"const":"a","title":"\u202dA"}]}`), []string{"/properties/f/oneOf/0/title"}},
		{"property name reversed", `{"type":"object","properties":{"a\u202eb":{"type":"string"}}}`, []string{"/properties/a\u202eb"}},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"string"}}`, []string{"/additionalProperties"}},
		{"root title not text", `{"type":"object","title":5}`, []string{"/title"}},
		{"field description not text", prop(`{"type":"string","description":["a"]}`), []string{"/properties/f/description"}},
		{"array without items", prop(`{"type":"array"}`), []string{"/properties/f"}},
		{"items not an object", prop(`{"type":"array","items":[{"enum":["a"]}]}`), []string{"/properties/f/items"}},
		{"items of numbers", prop(`{"type":"array","items":{"type":"number","enum":[1]}}`), []string{"/properties/f/items/type"}},
		{"free-text list", prop(`{"type":"array","items":{"type":"string"}}`), []string{"/properties/f/items"}},
		{"items pattern", prop(`{"type":"array","items":{"enum":["a"],"pattern":"a"}}`), []string{"/properties/f/items/pattern"}},
		{"items ref", prop(`{"type":"array","items":{"$ref":"#/x"}}`), []string{"/properties/f/items/$ref", "/properties/f/items"}},
		{"items enum and anyOf", prop(`{"type":"array","items":{"enum":["a"],"anyOf":[{"const":"a"}]}}`), []string{"/properties/f/items/anyOf"}},
		{"items enumNames without enum", prop(`{"type":"array","items":{"anyOf":[{"const":"a"}],"enumNames":["A"]}}`), []string{"/properties/f/items/enumNames"}},
		{"enum and oneOf", prop(`{"type":"string","enum":["a"],"oneOf":[{"const":"a"}]}`), []string{"/properties/f/oneOf"}},
		{"enumNames without enum", prop(`{"type":"string","enumNames":["A"]}`), []string{"/properties/f/enumNames"}},
		{"enumNames not strings", prop(`{"type":"string","enum":["a"],"enumNames":[1]}`), []string{"/properties/f/enumNames/0"}},
		{"enumNames not an array", prop(`{"type":"string","enum":["a"],"enumNames":"A"}`), []string{"/properties/f/enumNames"}},
		{"empty enum", prop(`{"type":"string","enum":[]}`), []string{"/properties/f/enum"}},
		{"enum not an array", prop(`{"type":"string","enum":"a"}`), []string{"/properties/f/enum"}},
		{"enum value a number", prop(`{"type":"string","enum":["a",2]}`), []string{"/properties/f/enum/1"}},
		{"enum value empty", prop(`{"type":"string","enum":[""]}`), []string{"/properties/f/enum/0"}},
		{"oneOf not an array", prop(`{"type":"string","oneOf":{"const":"a"}}`), []string{"/properties/f/oneOf"}},
		{"oneOf entry not an object", prop(`{"type":"string","oneOf":["a"]}`), []string{"/properties/f/oneOf/0"}},
		{"oneOf entry without const", prop(`{"type":"string","oneOf":[{"title":"A"}]}`), []string{"/properties/f/oneOf/0"}},
		{"oneOf entry with enum", prop(`{"type":"string","oneOf":[{"const":"a","enum":["a"]}]}`), []string{"/properties/f/oneOf/0/enum"}},
		{"oneOf title not text", prop(`{"type":"string","oneOf":[{"const":"a","title":1}]}`), []string{"/properties/f/oneOf/0/title"}},
		{"select with a length", prop(`{"type":"string","enum":["a"],"maxLength":3}`), []string{"/properties/f/maxLength"}},
		{"format not text", prop(`{"type":"string","format":1}`), []string{"/properties/f/format"}},
		{"pattern not text", prop(`{"type":"string","pattern":1}`), []string{"/properties/f/pattern"}},
		{"pattern too long", prop(`{"type":"string","pattern":"` + strings.Repeat("a", MaxPatternLength+1) + `"}`), []string{"/properties/f/pattern"}},
		{"no whole number in range", prop(`{"type":"integer","minimum":1.2,"maximum":1.8}`), []string{"/properties/f/minimum"}},
		{"whole numbers past 2^53 only", prop(`{"type":"integer","minimum":1e16}`), []string{"/properties/f/minimum"}},
		{"whole numbers below -2^53 only", prop(`{"type":"integer","maximum":-1e16}`), []string{"/properties/f/maximum"}},
		{"minimum not a number", prop(`{"type":"number","minimum":"1"}`), []string{"/properties/f/minimum"}},
		{"maximum beyond float64", prop(`{"type":"number","maximum":1e400}`), []string{"/properties/f/maximum"}},
		{"minLength fraction", prop(`{"type":"string","minLength":1.5}`), []string{"/properties/f/minLength"}},
		{"minItems over maxItems", prop(`{"type":"array","items":{"enum":["a","b"]},"minItems":2,"maxItems":1}`), []string{"/properties/f/minItems"}},
		{"minItems over choices", prop(`{"type":"array","items":{"enum":["a"]},"minItems":2}`), []string{"/properties/f/minItems"}},
		{"uniqueItems not boolean", prop(`{"type":"array","items":{"enum":["a"]},"uniqueItems":1}`), []string{"/properties/f/uniqueItems"}},
		{"required not an array", `{"type":"object","properties":{},"required":"x"}`, []string{"/required"}},
		{"required entry not text", `{"type":"object","properties":{},"required":[1]}`, []string{"/required/0"}},
		{"string default a number", prop(`{"type":"string","default":1}`), []string{"/properties/f/default"}},
		{"boolean default text", prop(`{"type":"boolean","default":"false"}`), []string{"/properties/f/default"}},
		{"number default text", prop(`{"type":"number","default":"abc"}`), []string{"/properties/f/default"}},
		{"number default beyond float64", prop(`{"type":"number","default":1e999}`), []string{"/properties/f/default"}},
		{"integer default with fraction", prop(`{"type":"integer","default":1.5}`), []string{"/properties/f/default"}},
		{"multi default not an array", prop(`{"type":"array","items":{"enum":["a"]},"default":"a"}`), []string{"/properties/f/default"}},
		{"multi default of numbers", prop(`{"type":"array","items":{"enum":["a"]},"default":[1]}`), []string{"/properties/f/default/0"}},
		{"multi default too many", prop(`{"type":"array","items":{"enum":["a","b"]},"maxItems":1,"default":["a","b"]}`), []string{"/properties/f/default"}},
		{"default too long", prop(`{"type":"string","maxLength":2,"default":"abc"}`), []string{"/properties/f/default"}},
		{"default against pattern", prop(`{"type":"string","pattern":"^a$","default":"b"}`), []string{"/properties/f/default"}},
		{"null default", prop(`{"type":"string","default":null}`), []string{"/properties/f/default"}},
		{"two problems", `{"type":"object","properties":{"a":{"type":"object"},"b":{"type":"string","format":"x"}}}`,
			[]string{"/properties/a/type", "/properties/b/format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			form, err := Parse([]byte(tt.schema))
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", form)
			}
			if got := problemPaths(t, err); !reflect.DeepEqual(got, tt.paths) {
				t.Errorf("problem paths = %q, want %q (%v)", got, tt.paths, err)
			}
		})
	}
}

func TestParseRequestForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, params string
		paths        []string // nil: accepted
	}{
		{"mode absent is form", `{"message":"Hi","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`, nil},
		{"mode form with meta", `{"mode":"form","_meta":{"x":[1,{"y":2}]},"message":"Hi","requestedSchema":{"type":"object"}}`, nil},
		{"no message", `{"requestedSchema":{"type":"object"}}`, []string{"/message"}},
		{"no schema", `{"message":"Hi"}`, []string{"/requestedSchema"}},
		{"bad mode", `{"mode":"popup","message":"Hi"}`, []string{"/mode"}},
		{"schema path prefixed", `{"message":"Hi","requestedSchema":{"type":"object","properties":{"a":{"type":"number","minimum":"1"}}}}`,
			[]string{"/requestedSchema/properties/a/minimum"}},
		{"not an object", `"hi"`, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := ParseRequest([]byte(tt.params))
			if tt.paths == nil {
				if err != nil {
					t.Fatal(err)
				}
				if req.Mode != ModeForm || req.Message != "Hi" || req.Form == nil {
					t.Errorf("got %+v, want a form request with message Hi", req)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", req)
			}
			if got := problemPaths(t, err); !reflect.DeepEqual(got, tt.paths) {
				t.Errorf("problem paths = %q, want %q (%v)", got, tt.paths, err)
			}
		})
	}
}

func TestSchemaErrorMessage(t *testing.T) {
	t.Parallel()
	many := &SchemaError{}
	for i := range 7 {
		many.Problems = append(many.Problems, Problem{Path: "/p" + strconv.Itoa(i), Message: "bad"})
	}
	if got, want := many.Error(), "elicitation request refused: /p0: bad; /p1: bad; /p2: bad; /p3: bad; /p4: bad; and 2 more"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var p schemaParser
	for range maxProblems + 50 {
		p.add("/x", "bad")
	}
	var se *SchemaError
	if !errors.As(p.err(), &se) || len(se.Problems) != maxProblems || se.Problems[maxProblems-1].Message != "51 more problems are not listed" {
		t.Errorf("a long list is not cut to %d with a count: %d, last %+v", maxProblems, len(se.Problems), se.Problems[len(se.Problems)-1])
	}
	var full schemaParser
	for range maxProblems {
		full.add("/x", "bad")
	}
	if !errors.As(full.err(), &se) || len(se.Problems) != maxProblems || se.Problems[maxProblems-1].Message != "bad" {
		t.Errorf("a list of exactly %d problems is not kept whole: last %+v", maxProblems, se.Problems[len(se.Problems)-1])
	}
	_, err := Parse([]byte(`{"type":"object","properties":{"a":{"type":"object"}}}`))
	if err == nil || !strings.Contains(err.Error(), "/properties/a/type: nested objects") {
		t.Errorf("Error() = %v, want the path and the reason", err)
	}
	if got, want := (&SchemaError{}).Error(), "elicitation request refused: invalid schema"; got != want {
		t.Errorf("Error() of no problems = %q, want %q", got, want)
	}
	deep := strings.Repeat(`{"x":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1)
	if _, err := Parse([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nested more than "+strconv.Itoa(maxDepth)+" levels deep") {
		t.Errorf("Parse of a too deep schema = %v, want it to say how deep", err)
	}
	// A schema cut short says so, not that its JSON is invalid.
	for _, cut := range []string{`{"type":`, `{"type":"object"`, `{"type":"object","properties":{"a":{`} {
		if _, err := Parse([]byte(cut)); err == nil || !strings.Contains(err.Error(), "ends too early") {
			t.Errorf("Parse(%s) = %v, want it to say the text ends too early", cut, err)
		}
	}
}

// TestParseHostile checks that schemas built to cost time or memory are
// refused with a bounded list of problems (the fuzz targets and the
// test timeout catch a parser that takes too long).
func TestParseHostile(t *testing.T) {
	t.Parallel()
	many := func(n int, member func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = member(i)
		}
		return strings.Join(parts, ",")
	}
	tests := []struct {
		name, schema string
		ok           bool
	}{
		{"many duplicate keys", `{"type":"object","x":{` + many(20000, func(int) string { return `"k":1` }) + `}}`, false},
		{"many distinct keys in an annotation", `{"type":"object","x":{` + many(20000, func(i int) string { return `"k` + strconv.Itoa(i) + `":1` }) + `}}`, true},
		{"many properties", `{"type":"object","properties":{` + many(10000, func(i int) string { return `"p` + strconv.Itoa(i) + `":{"type":"object"}` }) + `}}`, false},
		{"long required", `{"type":"object","required":[` + many(20000, func(i int) string { return `"r` + strconv.Itoa(i) + `"` }) + `]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if len(tt.schema) > MaxSchemaBytes {
				t.Fatalf("the test schema is %d bytes, over the size limit it means to stay under", len(tt.schema))
			}
			_, err := Parse([]byte(tt.schema))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			var se *SchemaError
			if errors.As(err, &se) && len(se.Problems) > maxProblems {
				t.Errorf("%d problems listed, more than %d", len(se.Problems), maxProblems)
			}
		})
	}
}

// manySelects is n properties, each a select of size options.
func manySelects(n, size int) []string {
	vals := make([]string, size)
	for i := range vals {
		vals[i] = `"` + strconv.Itoa(i) + `"`
	}
	enum := `{"type":"string","enum":[` + strings.Join(vals, ",") + `]}`
	props := make([]string, n)
	for i := range props {
		props[i] = `"s` + strconv.Itoa(i) + `":` + enum
	}
	return props
}

// Two selects of MaxOptions each are within MaxFormOptions.
func TestParseOptionsInAll(t *testing.T) {
	t.Parallel()
	if _, err := Parse([]byte(`{"type":"object","properties":{` + strings.Join(manySelects(2, MaxOptions), ",") + `}}`)); err != nil {
		t.Fatal(err)
	}
}

// manyBooleans is n boolean properties, p0 to p(n-1).
func manyBooleans(n int) []string {
	props := make([]string, n)
	for i := range props {
		props[i] = `"p` + strconv.Itoa(i) + `":{"type":"boolean"}`
	}
	return props
}

// TestEnumNamesBlank: a blank name in enumNames leaves the choice titled
// by its value, not by nothing.
func TestEnumNamesBlank(t *testing.T) {
	t.Parallel()
	form, err := Parse([]byte(`{"type":"object","properties":{"f":{"type":"string","enum":["a","b"],"enumNames":["","B"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if opts := form.Fields[0].Options; opts[0].Title != "a" || opts[1].Title != "B" {
		t.Errorf("options %+v, want titles a and B", opts)
	}
}
