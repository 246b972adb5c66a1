package elicit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON Schema's patterns are ECMA-262 regular expressions (in Unicode
// mode, as the validators servers use read them); formbridge checks
// answers with Go's RE2. The two agree on most of what schemas use, and
// ecmaToRE2 rewrites the rest, or refuses it, so that the bridge and the
// widget accept exactly what the server's own validator will:
//   - \s, \S and . mean other characters: JavaScript's \s also covers
//     the no-break space, U+3000 and the other Unicode spaces (a name
//     typed with a no-break space is one word apart to it), and its .
//     leaves out the line and paragraph separators;
//   - \uXXXX, \u{X…} and \cX exist only in JavaScript;
//   - (?i) and other flags, (?P<…>), \z, \A, \Q…\E, \pL without braces,
//     \x{…}, \a, [[:alpha:]] and {,5} exist only in Go (or mean something
//     else in JavaScript), and are refused, as are backreferences (\1,
//     which Go reads as an octal number);
//   - a repeat's count is written without leading zeros ({06} is text
//     to RE2), and [\b] is a backspace;
//   - [] matches nothing in JavaScript and [^] anything.

// ecmaSpace is JavaScript's \s (WhiteSpace and LineTerminator), as the
// inside of an RE2 character class.
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ecmaNotSpace is JavaScript's \S inside a class: every character but
// ecmaSpace's, as ranges (RE2 cannot negate a part of a class).
const ecmaNotSpace = `\x00-\x08\x0e-\x1f\x21-\x{9f}\x{a1}-\x{167f}\x{1681}-\x{1fff}\x{200b}-\x{2027}` +
	`\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{fefe}\x{ff00}-\x{10ffff}`

// maxRE2Pattern bounds a pattern once rewritten: \s and . are spelled
// out, so the RE2 text can be many times the schema's.
const maxRE2Pattern = 16 << 10

// ecmaDot is JavaScript's . outside a class: any character but a line
// terminator.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// errNotECMA wraps what only Go's syntax has.
var errNotECMA = errors.New("not JavaScript regular expression syntax, which JSON Schema patterns use")

// ecmaToRE2 rewrites an ECMA-262 pattern as the RE2 pattern that
// matches the same strings, or says what it cannot take.
func ecmaToRE2(src string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			n, err := ecmaEscape(&b, src[i:], inClass)
			if err != nil {
				return "", err
			}
			i += n
			continue
		case inClass && c == ']':
			inClass = false
		case inClass && c == '[':
			if strings.HasPrefix(src[i:], "[:") {
				return "", fmt.Errorf("%q inside [ ]: %w (write the characters, or \\[ for a bracket)", "[:", errNotECMA)
			}
			b.WriteString(`\[`)
			i++
			continue
		case c == '[':
			switch {
			case strings.HasPrefix(src[i:], "[^]"):
				b.WriteString(`(?s:.)`) // anything at all
				i += 3
				continue
			case strings.HasPrefix(src[i:], "[]"):
				return "", errors.New("[] matches nothing: write \\] for a bracket")
			}
			inClass = true
			if strings.HasPrefix(src[i:], "[^") {
				b.WriteString("[^")
				i += 2
				continue
			}
		case !inClass && c == '.':
			b.WriteString(ecmaDot)
			i++
			continue
		case !inClass && c == '(' && strings.HasPrefix(src[i:], "(?"):
			if err := ecmaGroup(src[i:]); err != nil {
				return "", err
			}
		case !inClass && c == '{':
			n, repeat, err := ecmaRepeat(src[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(repeat)
			i += n
			continue
		case !inClass && c == '}':
			return "", errors.New("} without a repeat before it: write \\} for a brace")
		}
		b.WriteByte(c)
		i++
	}
	if b.Len() > maxRE2Pattern {
		return "", fmt.Errorf("the pattern is too long once \\s, \\S and . are spelled out (%d bytes, at most %d): use them less", b.Len(), maxRE2Pattern)
	}
	return b.String(), nil
}

// ecmaEscape writes the RE2 form of the escape at the start of s (which
// starts with a backslash) and returns how many bytes it took.
func ecmaEscape(b *strings.Builder, s string, inClass bool) (int, error) {
	if len(s) < 2 {
		return 0, errors.New(`the pattern ends in a lone \`)
	}
	c := s[1]
	switch c {
	case 's':
		if inClass {
			b.WriteString(ecmaSpace)
		} else {
			b.WriteString("[" + ecmaSpace + "]")
		}
		return 2, nil
	case 'S':
		if inClass {
			b.WriteString(ecmaNotSpace) // [\s\S], "anything", is common
		} else {
			b.WriteString("[^" + ecmaSpace + "]")
		}
		return 2, nil
	case 'b':
		if inClass {
			b.WriteString(`\x{8}`) // backspace, in a class
			return 2, nil
		}
	case '0':
		if len(s) < 3 || s[2] < '0' || s[2] > '9' {
			b.WriteString(`\x{0}`)
			return 2, nil
		}
		return 0, fmt.Errorf(`%q is not a JavaScript escape (an octal number in Go)`, s[:3])
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		// A backreference in JavaScript, an octal number in Go: neither
		// can be checked as JavaScript means it.
		return 0, fmt.Errorf(`\%c is a backreference, which formbridge cannot check`, c)
	case 'a':
		return 0, fmt.Errorf(`\a is %w (the bell character in Go)`, errNotECMA)
	case 'u':
		r, n, err := ecmaCodePoint(s)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(b, `\x{%x}`, r)
		return n, nil
	case 'c':
		if len(s) < 3 || !isASCIILetter(s[2]) {
			return 0, errors.New(`\c must be followed by a letter, as in \cJ`)
		}
		fmt.Fprintf(b, `\x{%x}`, s[2]%32)
		return 3, nil
	case 'x':
		if len(s) < 4 || !isHex(s[2]) || !isHex(s[3]) {
			return 0, fmt.Errorf(`\x takes exactly two hex digits (\x41); \x{…} is %w`, errNotECMA)
		}
		b.WriteString(s[:4])
		return 4, nil
	case 'p', 'P':
		end := strings.IndexByte(s, '}')
		if len(s) < 3 || s[2] != '{' || end < 0 {
			return 0, fmt.Errorf(`\%c needs braces, as in \%c{L}: \%cL is %w`, c, c, c, errNotECMA)
		}
		name := s[3:end]
		for _, prefix := range []string{"Script=", "sc=", "General_Category=", "gc="} {
			name = strings.TrimPrefix(name, prefix)
		}
		b.WriteString(`\` + string(c) + "{" + name + "}")
		return end + 1, nil
	case 'z', 'A', 'Q', 'E', 'C', 'Z':
		return 0, fmt.Errorf(`\%c is %w`, c, errNotECMA)
	}
	if c >= utf8.RuneSelf {
		// An escaped non-ASCII character is itself, as in JavaScript
		// without the u flag, Python and RE2 (Unicode-mode JavaScript
		// refuses it; taken rather than refuse a pattern meant plainly).
		_, n := utf8.DecodeRuneInString(s[1:])
		b.WriteString(s[1 : 1+n])
		return 1 + n, nil
	}
	b.WriteString(s[:2])
	return 2, nil
}

// ecmaCodePoint reads \uXXXX (a surrogate pair as two of them) or
// \u{X…} at the start of s.
func ecmaCodePoint(s string) (rune, int, error) {
	if strings.HasPrefix(s, `\u{`) {
		end := strings.IndexByte(s, '}')
		if end < 4 || end > 9 {
			return 0, 0, errors.New(`\u{…} takes 1 to 6 hex digits`)
		}
		v, err := strconv.ParseUint(s[3:end], 16, 32)
		if err != nil || v > utf8.MaxRune || v >= 0xd800 && v <= 0xdfff {
			return 0, 0, fmt.Errorf("%s is not a character", s[:end+1])
		}
		return rune(v), end + 1, nil
	}
	hi, ok := hex4(s)
	if !ok {
		return 0, 0, errors.New(`\u takes four hex digits, as in \u00e9`)
	}
	if hi < 0xd800 || hi > 0xdfff {
		return hi, 6, nil
	}
	if lo, ok := hex4(s[min(6, len(s)):]); ok && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff {
		return 0x10000 + (hi-0xd800)<<10 + (lo - 0xdc00), 12, nil
	}
	return 0, 0, fmt.Errorf("%s is half of a character (a lone surrogate)", s[:6])
}

// hex4 reads \uXXXX at the start of s.
func hex4(s string) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:6], 16, 32)
	return rune(v), err == nil && !strings.ContainsAny(s[2:6], "+-_")
}

// ecmaGroup refuses the group openings only Go has: flags like (?i) and
// (?P<name>…). (?:…) and (?<name>…) mean the same in both; lookaround
// is left for RE2 to refuse.
func ecmaGroup(s string) error {
	if len(s) > 2 {
		switch s[2] {
		case ':', '=', '!', '<':
			return nil
		}
	}
	return fmt.Errorf("%q is %w (JavaScript has no inline flags or (?P<…>))", s[:min(len(s), 4)], errNotECMA)
}

// ecmaRepeat reads a repeat {n}, {n,} or {n,m} at the start of s and
// writes it as RE2 reads it: without leading zeros, which turn RE2's
// {06} into text where JavaScript repeats six times.
func ecmaRepeat(s string) (n int, repeat string, err error) {
	i, tooBig := 1, false
	number := func() (string, bool) {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return "", false
		}
		v, err := strconv.Atoi(s[start:i])
		tooBig = tooBig || err != nil || v > maxRepeat
		return strconv.Itoa(v), true
	}
	notRepeat := fmt.Errorf("%q does not start a repeat like {2,5}: write \\{ for a brace", s[:min(len(s), 4)])
	lo, ok := number()
	if !ok {
		return 0, "", notRepeat
	}
	repeat = "{" + lo
	if i < len(s) && s[i] == ',' {
		i++
		hi, _ := number()
		repeat += "," + hi
	}
	switch {
	case i >= len(s) || s[i] != '}':
		return 0, "", notRepeat
	case tooBig:
		return 0, "", fmt.Errorf("repeat %s: formbridge takes counts up to %d (use maxLength for long text)", s[:i+1], maxRepeat)
	}
	return i + 1, repeat + "}", nil
}

// maxRepeat is RE2's largest repeat count.
const maxRepeat = 1000
