package elicit

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCollect(t *testing.T) {
	t.Parallel()
	form := mustParse(t, allKinds)
	base := func(extra Inputs) Inputs {
		in := Inputs{"name": {"Ann"}, "ok": {"false"}}
		for k, v := range extra {
			in[k] = v
		}
		return in
	}
	tests := []struct {
		name string
		in   Inputs
		want string // the content as JSON, or "" when errs is expected
		errs []string
	}{
		{"optional empties are omitted", base(Inputs{"email": {""}, "age": {" "}, "color": {""}, "tags": {""}, "at": {}}),
			`{"name":"Ann","ok":false}`, nil},
		{"false is an answer", base(nil), `{"name":"Ann","ok":false}`, nil},
		{"every kind typed", base(Inputs{
			"email": {" ann@example.com "}, "site": {"https://example.com"}, "day": {"2026-12-31"},
			"code": {"XYZ"}, "age": {"42"}, "ratio": {"0.25"}, "color": {"red"}, "size": {"s"},
			"tags": {"c", "a"}, "ok": {"true"},
		}), `{"age":42,"code":"XYZ","color":"red","day":"2026-12-31","email":"ann@example.com","name":"Ann","ok":true,"ratio":0.25,"site":"https://example.com","size":"s","tags":["a","c"]}`, nil},
		{"free text kept as typed", base(Inputs{"name": {" Ann "}}), `{"name":" Ann ","ok":false}`, nil},
		{"integer written with fraction zero", base(Inputs{"age": {"7.0"}}), `{"age":7,"name":"Ann","ok":false}`, nil},
		{"minus zero", base(Inputs{"ratio": {"-0"}}), `{"name":"Ann","ok":false,"ratio":0}`, nil},
		{"datetime-local gets UTC", base(Inputs{"at": {"2026-12-02T10:30"}}), `{"at":"2026-12-02T10:30:00Z","name":"Ann","ok":false}`, nil},
		{"RFC 3339 kept", base(Inputs{"at": {"2026-12-02T10:30:00-05:00"}}), `{"at":"2026-12-02T10:30:00-05:00","name":"Ann","ok":false}`, nil},
		{"unknown inputs ignored", base(Inputs{"zz": {"x"}}), `{"name":"Ann","ok":false}`, nil},
		{"required empty", Inputs{"name": {""}}, "", []string{"name:required", "ok:required"}},
		{"too short", base(Inputs{"name": {"A"}}), "", []string{"name:too_short"}},
		{"too long", base(Inputs{"name": {"Annabel"}}), "", []string{"name:too_long"}},
		{"pattern", base(Inputs{"code": {"AB"}}), "", []string{"code:pattern"}},
		{"email", base(Inputs{"email": {"ann at example.com"}}), "", []string{"email:format"}},
		{"date", base(Inputs{"day": {"31/12/2026"}}), "", []string{"day:format"}},
		{"date-time", base(Inputs{"at": {"tomorrow"}}), "", []string{"at:format"}},
		{"not integer", base(Inputs{"age": {"2.5"}}), "", []string{"age:not_integer"}},
		{"not a whole number at all", base(Inputs{"age": {"ten"}}), "", []string{"age:not_integer"}},
		{"not a number", base(Inputs{"ratio": {"half"}}), "", []string{"ratio:not_a_number"}},
		{"hex is not a number", base(Inputs{"ratio": {"0x1p-2"}}), "", []string{"ratio:not_a_number"}},
		{"too small", base(Inputs{"age": {"0"}}), "", []string{"age:too_small"}},
		{"too large", base(Inputs{"age": {"101"}}), "", []string{"age:too_large"}},
		{"beyond float64", base(Inputs{"ratio": {"1e999"}}), "", []string{"ratio:too_large"}},
		{"boolean other", base(Inputs{"ok": {"yes"}}), "", []string{"ok:not_an_option"}},
		{"select by title", base(Inputs{"size": {"Small"}}), "", []string{"size:not_an_option"}},
		{"too many", base(Inputs{"tags": {"a", "b", "c"}}), "", []string{"tags:too_many"}},
		{"multi not an option", base(Inputs{"tags": {"z"}}), "", []string{"tags:not_an_option"}},
		{"multi twice", base(Inputs{"tags": {"a", "a"}}), "", []string{"tags:duplicate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			content, errs := form.Collect(tt.in, nil)
			if got := codes(errs); !reflect.DeepEqual(got, tt.errs) {
				t.Fatalf("errors = %q, want %q", got, tt.errs)
			}
			if tt.want == "" {
				if content != nil {
					t.Errorf("content = %v alongside errors, want nil", content)
				}
				return
			}
			b, err := json.Marshal(content)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("content = %s, want %s", b, tt.want)
			}
			// What a person can send, the bridge must accept.
			if verrs := form.Validate(content); verrs != nil {
				t.Errorf("Validate(Collect()) = %q", codes(verrs))
			}
		})
	}
}

func TestCollectOffset(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{"at":{"type":"string","format":"date-time"}}}`)
	// A summer-time rule: the offset depends on the date asked about.
	offset := func(local time.Time) time.Duration {
		if local.Month() >= time.April && local.Month() <= time.September {
			return 2 * time.Hour
		}
		return time.Hour
	}
	tests := []struct{ in, want string }{
		{"2026-07-01T09:00", "2026-07-01T09:00:00+02:00"},
		{"2026-12-01T09:00:30", "2026-12-01T09:00:30+01:00"},
		{"2026-12-01 09:00", "2026-12-01T09:00:00+01:00"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			content, errs := form.Collect(Inputs{"at": {tt.in}}, &CollectOptions{UTCOffset: offset})
			if errs != nil {
				t.Fatal(codes(errs))
			}
			if content["at"] != tt.want {
				t.Errorf("at = %v, want %s", content["at"], tt.want)
			}
		})
	}
	_, errs := form.Collect(Inputs{"at": {"2026-12-01T09:00"}}, &CollectOptions{UTCOffset: func(time.Time) time.Duration { return 30 * time.Hour }})
	if got := codes(errs); !reflect.DeepEqual(got, []string{"at:format"}) {
		t.Errorf("an impossible offset gave %q, want a format error", got)
	}
	// The hour the clocks skip has no offset to go with: refused, saying why.
	skipped := &CollectOptions{UTCOffset: offset, Skipped: func(local time.Time) bool { return local.Hour() == 2 && local.Day() == 29 }}
	_, errs = form.Collect(Inputs{"at": {"2026-03-29T02:30"}}, skipped)
	if len(errs) != 1 || errs[0].Code != CodeFormat || !strings.Contains(errs[0].Message, "does not exist where you are") {
		t.Errorf("a skipped time gave %+v, want a format error saying it does not exist", errs)
	}
	if content, errs := form.Collect(Inputs{"at": {"2026-03-29T03:30"}}, skipped); errs != nil || content["at"] != "2026-03-29T03:30:00+01:00" {
		t.Errorf("the next hour gave %v, %+v", content, errs)
	}
}

func TestCollectMessages(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{
		"n":{"type":"integer","minimum":1,"maximum":100},
		"e":{"type":"string","format":"email"},
		"t":{"type":"string","minLength":3},
		"i":{"type":"string","format":"email"},
		"m":{"type":"array","items":{"enum":["a","b","c"]},"maxItems":2}}}`)
	_, errs := form.Collect(Inputs{"n": {"1.5"}, "e": {"x"}, "i": {"josé@example.com"}, "t": {"ab"}, "m": {"a", "b", "c"}}, nil)
	want := map[string]string{
		"n": "Enter a whole number between 1 and 100",
		"e": "Enter an email address, like name@example.com",
		"i": "Enter the email address in plain letters a to z, without accents, like name@example.com",
		"t": "Enter at least 3 characters",
		"m": "Choose at most 2",
	}
	if len(errs) != len(want) {
		t.Fatalf("errors = %+v", errs)
	}
	for _, e := range errs {
		if e.Message != want[e.Field] {
			t.Errorf("%s: message %q, want %q", e.Field, e.Message, want[e.Field])
		}
	}
}

// A choice's value goes as the server wrote it: " a" is an option of its
// own (trimmed, it was no option at all and could never be chosen), and
// an untouched form sends its defaults.
func TestCollectKeepsChoiceValues(t *testing.T) {
	t.Parallel()
	form := mustParse(t, `{"type":"object","properties":{
		"v":{"type":"string","enum":[" a","b"],"default":" a"},
		"w":{"type":"string","oneOf":[{"const":" ","title":"Blank"},{"const":"Yes ","title":"Yes"}]}},"required":["w"]}`)
	got, errs := form.Collect(Inputs{"v": {" a"}, "w": {" "}}, nil)
	if len(errs) != 0 || got["v"] != " a" || got["w"] != " " {
		t.Errorf("got %q, errors %+v; want v \" a\" and w \" \"", got, errs)
	}
	got, errs = form.Collect(Inputs{"w": {"Yes "}}, nil)
	if len(errs) != 0 || got["w"] != "Yes " {
		t.Errorf("got %q, errors %+v; want w \"Yes \"", got, errs)
	}
	if got, errs := form.Collect(form.Initial(), nil); len(errs) != 1 || errs[0].Field != "w" || got != nil {
		t.Errorf("untouched: %q, %+v; want only w required", got, errs)
	}
	got, errs = form.Collect(mergeInputs(form.Initial(), Inputs{"w": {" "}}), nil)
	if len(errs) != 0 || got["v"] != form.Defaults()["v"] {
		t.Errorf("the default went as %q (errors %+v), want %q", got["v"], errs, form.Defaults()["v"])
	}
}

func mergeInputs(a, b Inputs) Inputs {
	out := Inputs{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// A decimal comma, which is all a phone's decimal pad offers in much of
// Europe, is read as the point where it cannot be a thousands separator.
func TestCollectDecimalComma(t *testing.T) {
	form := mustParse(t, `{"type":"object","properties":{"amount":{"type":"number"}}}`)
	for _, tt := range []struct {
		typed string
		want  any // the number sent, or the message shown
	}{
		{"1,5", 1.5},
		{"0,25", 0.25},
		{"-12,75", -12.75},
		{"1250,5", 1250.5},
		{"3,1416", 3.1416},
		{"1,250", "Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs"},
		{"1.250,5", "Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs"},
		{"1,2,3", "Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs"},
		{"0,250", 0.25}, // nothing before the comma to group
		{"-0,125", -0.125},
		{",5", 0.5},
		{"-,5", -0.5},
		{".5", 0.5},
		{"+1", 1.0},
		{"1,", "Enter a number"},
	} {
		content, errs := form.Collect(Inputs{"amount": {tt.typed}}, nil)
		var got any = content["amount"]
		if len(errs) > 0 {
			got = errs[0].Message
		}
		if got != tt.want {
			t.Errorf("typed %q: got %v; want %v", tt.typed, got, tt.want)
		}
	}
}

// A number typed the way people write amounts ("1,250.00", "€1250",
// "1 250") is told what to change, not "Enter a number", which it is to
// the person who typed it. Text that is no number at all keeps the range.
func TestCollectNumberAsPeopleWriteIt(t *testing.T) {
	form := mustParse(t, `{"type":"object","properties":{"amount":{"type":"number","minimum":0,"maximum":5000},"copies":{"type":"integer","minimum":1}}}`)
	for _, tt := range []struct{ amount, copies, wantAmount, wantCopies string }{
		{"1,250.00", "1,000", "Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs", "Use digits only, without commas, spaces or other signs"},
		{"€1250", "2 000", "Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs", "Use digits only, without commas, spaces or other signs"},
		// Three digits after a lone comma group thousands in English and
		// are decimals in German: not guessed.
		{"1,250", "1,5", "Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs", "Enter a whole number that is 1 or more"},
		{"1.2.3", "1.5", "Enter a number between 0 and 5000", "Enter a whole number that is 1 or more"},
	} {
		_, errs := form.Collect(Inputs{"amount": {tt.amount}, "copies": {tt.copies}}, nil)
		got := map[string]string{}
		for _, e := range errs {
			got[e.Field] = e.Message
		}
		if got["amount"] != tt.wantAmount || got["copies"] != tt.wantCopies {
			t.Errorf("typed %q and %q: told %q and %q; want %q and %q", tt.amount, tt.copies, got["amount"], got["copies"], tt.wantAmount, tt.wantCopies)
		}
	}
}
