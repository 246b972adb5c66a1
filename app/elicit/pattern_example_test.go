package elicit

import (
	"regexp"
	"testing"
)

func TestPatternExample(t *testing.T) {
	tests := []struct {
		pattern, want string
	}{
		{`^[A-Z]{3}-\d{4}$`, "ABC-1234"},
		{`^\d{5}(-\d{4})?$`, "12345"},
		{`^[a-z0-9_]-\d+$`, "a-123"},
		{`^\d{5}$`, "12345"},
		{`^[A-Za-z]{2}\d{2}[A-Z0-9]{1,30}$`, "AB12ABC"},
		{`\A(?:INV|PO)-\d{6}\z`, "INV-123456"},
		{`^#[0-9a-fA-F]{6}$`, "#ABCDEF"},
		{`^\d{1,2}:\d{2}$`, "12:12"},
		{`(?i)^ab-\d+$`, "ab-123"},
		{`^[^@\s]+@[^@\s]+\.[a-z]{2,}$`, "ABC@ABC.abc"},
		{`^v\d+\.\d+\.\d+$`, "v123.123.123"},
		{`^[é-ë]{2}-\d$`, "éé-1"},
		{`^x[\x{0300}-\x{036f}a]$`, "xa"},
		// No honest sample:
		{`\d+`, ""},         // not anchored: any text with a digit in it
		{`^\d+`, ""},        // anchored at one end only
		{`^(a|b)$|^c$`, ""}, // an alternation of anchored patterns
		{`^.*$`, ""},        // anything at all, even nothing
		{`^.{8,}$`, ""},     // any text of 8 characters or more
		{`^[^<>]+$`, ""},    // any text without angle brackets
		{`^\d{50}$`, ""},    // too long to read as an example
		{`^\bword\b$`, ""},  // a word boundary
		{`^[\x00-\x1f]+$`, ""},
		{`^ +$`, ""},
		{"^a\u202eb$", ""},
		{`^[a-z0-9_]+$`, ""},      // the characters allowed, not a format
		{`^[A-Za-z ]{2,30}$`, ""}, // nor this: "José" is not like "ABC"
		{`^\+?[0-9 ]{7,15}$`, ""}, // digits and spaces, any way round
		{`(?m)^\d{3}$`, ""},       // matches "ab\n123": not the whole text
		{`^a[\x{FE0F}]$`, ""},     // looks like "a" alone
		{`^\x{3164}{3}$`, ""},     // blank
		{`^[\x{0300}-\x{036f}]{3}-x$`, ""},
	}
	for _, tt := range tests {
		re := regexp.MustCompile(tt.pattern)
		if got := patternExample(tt.pattern, re, nil, nil); got != tt.want {
			t.Errorf("patternExample(%q) = %q; want %q", tt.pattern, got, tt.want)
		}
	}
}

// An example never breaks the field's other limits.
func TestPatternExampleLengths(t *testing.T) {
	re := regexp.MustCompile(`^[a-z]+$`)
	four, two := 4, 2
	if got := patternExample(re.String(), re, &four, nil); got != "" {
		t.Errorf("with minLength 4: %q; want none", got)
	}
	if got := patternExample(re.String(), re, nil, &two); got != "" {
		t.Errorf("with maxLength 2: %q; want none", got)
	}
}

// The form says it in the field's error, and only where the schema asks
// for no format (whose own hint says more).
func TestPatternExampleInForm(t *testing.T) {
	form, err := Parse([]byte(`{"type":"object","properties":{
		"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"},
		"mail":{"type":"string","format":"email","pattern":"^[a-z]+@example\\.com$"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	code, mail := form.Field("code"), form.Field("mail")
	if code.Example != "ABC-1234" || mail.Example != "" {
		t.Errorf("examples %q and %q; want ABC-1234 and none", code.Example, mail.Example)
	}
	errs := form.Validate(map[string]any{"code": "abc"})
	if len(errs) != 1 || errs[0].Message != "Enter it in this format: ABC-1234" {
		t.Errorf("errors %+v; want the example in the message", errs)
	}
}
