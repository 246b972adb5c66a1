package elicit

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func ip(n int) *int         { return &n }
func fp(x float64) *float64 { return &x }

// opts builds options from value, title pairs.
func opts(vt ...string) []Option {
	var out []Option
	for i := 0; i+1 < len(vt); i += 2 {
		out = append(out, Option{Value: vt[i], Title: vt[i+1]})
	}
	return out
}

// TestParseKinds parses one property of every kind and checks the field
// it becomes, exported parts only.
func TestParseKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, prop string
		want       Field
	}{
		{"string", `{"type":"string","title":"Name","description":"Full name","minLength":1,"maxLength":50,"default":"Ann"}`,
			Field{Kind: KindString, Title: "Name", Label: "Name", Description: "Full name", MinLength: ip(1), MaxLength: ip(50), Default: "Ann"}},
		{"email", `{"type":"string","format":"email"}`, Field{Kind: KindString, Label: "F", Format: FormatEmail}},
		{"uri", `{"type":"string","format":"uri"}`, Field{Kind: KindString, Label: "F", Format: FormatURI}},
		{"date", `{"type":"string","format":"date","default":"2026-01-31"}`, Field{Kind: KindString, Label: "F", Format: FormatDate, Default: "2026-01-31"}},
		{"date-time", `{"type":"string","format":"date-time"}`, Field{Kind: KindString, Label: "F", Format: FormatDateTime}},
		{"pattern", `{"type":"string","pattern":"^[a-z]+$"}`, Field{Kind: KindString, Label: "F", Pattern: "^[a-z]+$"}},
		{"number", `{"type":"number","minimum":-1.5,"maximum":2.5,"default":0.5}`,
			Field{Kind: KindNumber, Label: "F", Minimum: fp(-1.5), Maximum: fp(2.5), Default: 0.5}},
		{"integer", `{"type":"integer","minimum":1,"maximum":100,"default":30}`,
			Field{Kind: KindInteger, Label: "F", Minimum: fp(1), Maximum: fp(100), Default: 30.0}},
		{"boolean false default", `{"type":"boolean","default":false}`, Field{Kind: KindBoolean, Label: "F", Default: false}},
		{"untitled single select", `{"type":"string","enum":["a","b"],"default":"b"}`,
			Field{Kind: KindSelect, Label: "F", Options: opts("a", "a", "b", "b"), Default: "b"}},
		{"titled single select", `{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}`,
			Field{Kind: KindSelect, Label: "F", Options: opts("r", "Red", "g", "Green")}},
		{"legacy titled select", `{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}`,
			Field{Kind: KindSelect, Label: "F", Options: opts("r", "Red", "g", "Green")}},
		{"untitled multi select", `{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2,"default":["c","a"]}`,
			Field{Kind: KindMultiSelect, Label: "F", Options: opts("a", "a", "b", "b", "c", "c"), MinItems: ip(1), MaxItems: ip(2), Default: []string{"a", "c"}}},
		{"titled multi select", `{"type":"array","items":{"anyOf":[{"const":"x","title":"Ex"},{"const":"y","title":"Why"}]}}`,
			Field{Kind: KindMultiSelect, Label: "F", Options: opts("x", "Ex", "y", "Why")}},
		{"annotations ignored", `{"type":"string","x-widget":"big","examples":["a"],"$comment":"c"}`, Field{Kind: KindString, Label: "F"}},
		{"blank title falls back to the key", `{"type":"string","title":"  "}`, Field{Kind: KindString, Title: "  ", Label: "F"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			form := mustParse(t, `{"type":"object","properties":{"f":`+tt.prop+`}}`)
			got := form.Fields[0]
			got.pattern = nil
			tt.want.Key = "f"
			if !reflect.DeepEqual(got, tt.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tt.want)
				t.Errorf("field\n got %s\nwant %s", g, w)
			}
		})
	}
}

// sep1330 has the five enum variants of SEP-1330, all required.
const sep1330 = `{"type":"object","properties":{
	"untitledSingle":{"type":"string","title":"Pick one","enum":["option1","option2","option3"]},
	"titledSingle":{"type":"string","title":"Pick one","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"}]},
	"legacyEnum":{"type":"string","title":"Pick one","enum":["opt1","opt2"],"enumNames":["Option One","Option Two"]},
	"untitledMulti":{"type":"array","title":"Pick some","minItems":1,"maxItems":2,"items":{"type":"string","enum":["option1","option2","option3"]}},
	"titledMulti":{"type":"array","title":"Pick some","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"}]}}
},"required":["untitledSingle","titledSingle","legacyEnum","untitledMulti","titledMulti"]}`

func TestSEP1330EnumVariants(t *testing.T) {
	t.Parallel()
	form := mustParse(t, sep1330)
	// The person picks by title; what is sent is the value, multi selects in option order.
	in := Inputs{
		"untitledSingle": {"option2"},
		"titledSingle":   {"value2"},
		"legacyEnum":     {"opt1"},
		"untitledMulti":  {"option3", "option1"},
		"titledMulti":    {"value2", "value1"},
	}
	content, errs := form.Collect(in, nil)
	if errs != nil {
		t.Fatal(codes(errs))
	}
	got, _ := json.Marshal(content)
	want := `{"legacyEnum":"opt1","titledMulti":["value1","value2"],"titledSingle":"value2","untitledMulti":["option1","option3"],"untitledSingle":"option2"}`
	if string(got) != want {
		t.Errorf("content %s, want %s", got, want)
	}
	if titles := form.Field("legacyEnum").Options; titles[0].Title != "Option One" {
		t.Errorf("legacy enumNames not used as titles: %+v", titles)
	}
	if errs := form.Validate(content); errs != nil {
		t.Errorf("Validate: %q", codes(errs))
	}
	_, errs = form.Collect(Inputs{"titledSingle": {"First Option"}}, nil)
	want2 := []string{"untitledSingle:required", "titledSingle:not_an_option", "legacyEnum:required", "untitledMulti:required", "titledMulti:required"}
	if got := codes(errs); !reflect.DeepEqual(got, want2) {
		t.Errorf("errors %q, want %q", got, want2)
	}
}

// sep1034 is the schema of the conformance scenario
// elicitation-sep1034-client-defaults: every field optional, every field
// defaulted, and the client must send every default with its type.
const sep1034 = `{"type":"object","properties":{
	"name":{"type":"string","description":"User name","default":"John Doe"},
	"age":{"type":"integer","description":"User age","default":30},
	"score":{"type":"number","description":"User score","default":95.5},
	"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","description":"Verification status","default":true}
},"required":[]}`

func TestSEP1034Defaults(t *testing.T) {
	t.Parallel()
	form := mustParse(t, sep1034)
	for _, f := range form.Fields {
		if !f.HasDefault() {
			t.Errorf("%s: HasDefault is false", f.Key)
		}
	}
	if (&Field{Kind: KindBoolean, Default: false}).HasDefault() != true || (&Field{}).HasDefault() {
		t.Error("HasDefault must count false as a default and nil as none")
	}
	want := `{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}`
	if got, _ := json.Marshal(form.Defaults()); string(got) != want {
		t.Errorf("Defaults = %s, want %s", got, want)
	}
	content, errs := form.Collect(form.Initial(), nil)
	if errs != nil {
		t.Fatal(codes(errs))
	}
	if got, _ := json.Marshal(content); string(got) != want {
		t.Errorf("untouched form sends %s, want %s", got, want)
	}
	// The person clears a field: it is left out, not sent as its default or as "".
	in := form.Initial()
	in["name"] = []string{""}
	content, _ = form.Collect(in, nil)
	if _, ok := content["name"]; ok {
		t.Errorf("cleared field sent: %v", content)
	}
}

// TestSchemas20250618 runs schemas written for the first elicitation
// revision, from its examples.
func TestSchemas20250618(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, schema string }{
		{"github username", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`},
		{"contact", `{"type":"object","properties":{
			"name":{"type":"string","description":"Your full name"},
			"email":{"type":"string","format":"email","description":"Your email address"},
			"age":{"type":"number","minimum":18,"description":"Your age"}},"required":["name","email"]}`},
		{"enum names", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{
			"size":{"type":"string","title":"Size","enum":["s","m","l"],"enumNames":["Small","Medium","Large"]},
			"agree":{"type":"boolean","title":"I agree","default":false},
			"born":{"type":"string","format":"date"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkRoundTrip(t, mustParse(t, tt.schema))
		})
	}
	form := mustParse(t, tests[1].schema)
	content, errs := form.Collect(Inputs{"name": {"Monalisa Octocat"}, "email": {"octocat@github.com"}, "age": {"30"}}, nil)
	if got, _ := json.Marshal(content); errs != nil || string(got) != `{"age":30,"email":"octocat@github.com","name":"Monalisa Octocat"}` {
		t.Errorf("content %s, errors %q", got, codes(errs))
	}
}

// TestLimits refuses schemas beyond each named limit, and takes them at it.
func TestLimits(t *testing.T) {
	t.Parallel()
	props := func(n int) string {
		return `{"type":"object","properties":{` + strings.Join(manyBooleans(n), ",") + `}}`
	}
	enum := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = `"v` + strconv.Itoa(i) + `"`
		}
		return `{"type":"object","properties":{"f":{"type":"string","enum":[` + strings.Join(vals, ",") + `]}}}`
	}
	title := func(n int) string {
		return `{"type":"object","properties":{"f":{"type":"string","title":"` + strings.Repeat("é", n) + `"}}}`
	}
	choice := func(n int) string {
		return `{"type":"object","properties":{"f":{"type":"string","enum":["` + strings.Repeat("é", n) + `"]}}}`
	}
	tests := []struct {
		name, schema string
		path         string // where the refusal points, unless ok
		ok           bool
	}{
		{"properties at limit", props(MaxProperties), "", true},
		{"properties over limit", props(MaxProperties + 1), "/properties", false},
		{"options at limit", enum(MaxOptions), "", true},
		{"options over limit", enum(MaxOptions + 1), "/properties/f/enum", false},
		{"title at limit counts characters", title(MaxTextRunes), "", true},
		{"title over limit", title(MaxTextRunes + 1), "/properties/f/title", false},
		{"choice at limit", choice(MaxTextRunes), "", true},
		{"pattern at limit", `{"type":"object","properties":{"f":{"type":"string","pattern":"` + strings.Repeat("a", MaxPatternLength) + `"}}}`, "", true},
		{"integer range from the largest safe integer", `{"type":"object","properties":{"f":{"type":"integer","minimum":9007199254740991}}}`, "", true},
		{"choice over limit", choice(MaxTextRunes + 1), "/properties/f/enum/0", false},
		{"schema over size", `{"type":"object","description":"` + strings.Repeat("a", MaxSchemaBytes) + `"}`, "", false},
		{"too deep", strings.Repeat(`{"x":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.schema))
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if paths := problemPaths(t, err); paths[0] != tt.path {
				t.Errorf("path %q, want %q", paths[0], tt.path)
			}
		})
	}
}
