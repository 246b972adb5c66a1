package elicit

import (
	"regexp"
	"strings"
	"testing"
)

// A schema's pattern is read as JavaScript reads it (the server's own
// validator), whatever RE2 would make of the same text.
func TestPatternAsJavaScriptReadsIt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		pattern string
		match   []string
		miss    []string
	}{
		// \s takes the no-break space, U+3000 and the other spaces.
		{`^\w+\s\w+$`, []string{"John Smith", "John\u00a0Smith", "John\u3000Smith", "John\u2009Smith"}, []string{"JohnSmith"}},
		{`^\S+$`, []string{"abc"}, []string{"a\u00a0b", "a\u2028b", "a\ufeffb"}},
		{`^[\s,]+$`, []string{" ,\u00a0"}, []string{"a"}},
		// . leaves out line terminators.
		{`^a.b$`, []string{"a b", "a\u00a0b"}, []string{"a\nb", "a\u2028b", "a\u2029b", "a\rb"}},
		{`^[^]{3}$`, []string{"a\nb"}, []string{"ab"}},
		// Escapes only JavaScript has.
		{`^[\u00C0-\u00FF]+$`, []string{"Éà"}, []string{"E"}},
		{`^\u{1F600}$`, []string{"😀"}, []string{"a"}},
		{`^\uD83D\uDE00$`, []string{"😀"}, []string{"\ufffd"}},
		{`^a\cJb$`, []string{"a\nb"}, []string{"ab"}},
		{`^\p{Script=Greek}+$`, []string{"αβγ"}, []string{"abc"}},
		{`^\p{L}{2}$`, []string{"éa"}, []string{"1a"}},
		// The same in both.
		{`^\d{3}-\d{4}$`, []string{"555-1234"}, []string{"٥٥٥-1234"}},
		{`^(?:ab|cd){1,2}$`, []string{"abcd"}, []string{"abc"}},
		{`^(?<code>[A-Z]{3})$`, []string{"ABC"}, []string{"abc"}},
		{`^\x41\.\/$`, []string{"A./"}, []string{"B./"}},
		{`^[a\-z]$`, []string{"-"}, []string{"b"}},
		// [\s\S] is anything, [^\S] a space; {06} is six, not text.
		{`^[\s\S]{3}$`, []string{"a\n\u00a0"}, []string{"ab"}},
		{`^[^\S]+$`, []string{" \u3000"}, []string{"a"}},
		{`^PO-\d{06}$`, []string{"PO-123456"}, []string{"PO-0{06}", "PO-12345"}},
		{`^a{01,002}$`, []string{"a", "aa"}, []string{"aaa"}},
		{`^a[\b]$`, []string{"a\b"}, []string{"ab"}},
		{`^a\0$`, []string{"a\x00"}, []string{"a0"}},
		// RE2's largest count, which JavaScript takes too.
		{`^\d{9}$`, []string{"123456789"}, []string{"12345678"}},
		{`^a{1000}$`, []string{strings.Repeat("a", 1000)}, []string{strings.Repeat("a", 999)}},
	} {
		src, err := ecmaToRE2(tt.pattern)
		if err != nil {
			t.Errorf("%s: %v", tt.pattern, err)
			continue
		}
		re, err := regexp.Compile(src)
		if err != nil {
			t.Errorf("%s as %s: %v", tt.pattern, src, err)
			continue
		}
		for _, s := range tt.match {
			if !re.MatchString(s) {
				t.Errorf("%s (%s) does not match %q", tt.pattern, src, s)
			}
		}
		for _, s := range tt.miss {
			if re.MatchString(s) {
				t.Errorf("%s (%s) matches %q", tt.pattern, src, s)
			}
		}
	}
}

// What only Go's syntax has (or JavaScript reads otherwise) is refused,
// saying what; the server's validator could not have checked it.
func TestPatternRefusesGoOnlySyntax(t *testing.T) {
	t.Parallel()
	for _, p := range []string{
		`(?i)abc`, `(?s).`, `(?m)^a$`, `(?P<n>a)`, `a\z`, `\Aa`, `\Qa.b\E`, `\pL`, `\x{41}`, `[[:alpha:]]`,
		`a{,5}`, `a{2`, `a}`, `[]a]`, `\u12`, `\uD800`, `\u{110000}`, `\c1`, `a\`,
		`^(a)\1$`, `^a\12b$`, `\01`, `[\12]`, `\a`, `a{1001}`, `a{2,99999999999999999999}`,
	} {
		if src, err := ecmaToRE2(p); err == nil {
			t.Errorf("%s: read as %s, want it refused", p, src)
		} else if err.Error() == "" {
			t.Errorf("%s: an empty reason", p)
		}
	}
	_, err := Parse([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"(?i)^abc$"}}}`))
	if err == nil || !strings.Contains(err.Error(), "not JavaScript regular expression syntax") {
		t.Errorf("a schema with (?i): %v, want it refused saying why", err)
	}
}
