package elicit

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A pattern means nothing to most people: "^[A-Z]{3}-\d{4}$" is, to
// them, "like ABC-1234". patternExample writes such a sample, which the
// widget shows as a hint and in the field's error. Only the bridge runs
// it (Parse), so the widget carries the sample, not this code.

// maxExampleLength bounds a sample in characters: a longer one would not
// read as an example.
const maxExampleLength = 40

// patternExample is a short string that re matches, written the way a
// person would show the format, or "" when there is no honest one: the
// pattern is not anchored at both ends (it then only asks for some text
// to appear anywhere, which one sample would misstate), the sample would
// break the field's length limits, or it holds a character that is not
// plainly visible.
func patternExample(pattern string, re *regexp.Regexp, minLength, maxLength *int) string {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || !anchored(tree) {
		return ""
	}
	var g exampleWriter
	if !g.write(tree) || !g.literal && (g.broad || g.classes == 1 && !g.digitsOnly) {
		// "^.+$", "^[^<>]*$": any text will do; "^[A-Za-z ]{2,30}$": the
		// characters allowed, not a format. A sample would suggest one the
		// pattern does not ask for ("José" told to write it like "ABC").
		// Digits alone ("^\d{5}$") do read as a format: 12345.
		return ""
	}
	ex := g.b.String()
	n := utf8.RuneCountInString(ex)
	switch {
	case n == 0 || n > maxExampleLength,
		minLength != nil && n < *minLength,
		maxLength != nil && n > *maxLength,
		strings.IndexFunc(ex, func(r rune) bool { return !plainlyVisible(r) }) >= 0,
		strings.TrimSpace(ex) != ex,
		!re.MatchString(ex):
		return ""
	}
	return ex
}

// plainlyVisible reports whether r shows as a character of its own:
// not a control or combining mark, not a space other than ' ', and not
// one hiddenRune names (format characters, the letters and symbols that
// render blank).
func plainlyVisible(r rune) bool {
	return unicode.IsGraphic(r) && !unicode.In(r, unicode.Mn, unicode.Me) && !hiddenRune(r) &&
		(r == ' ' || !unicode.IsSpace(r))
}

// anchored reports whether the pattern must match the whole text: it
// begins with ^ or \A and ends with $ or \z, not in (?m) mode, where
// they match at any line.
func anchored(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return false
	}
	first, last := re.Sub[0].Op, re.Sub[len(re.Sub)-1].Op
	return first == syntax.OpBeginText && last == syntax.OpEndText
}

// exampleWriter builds a sample: each part of the pattern as a person
// would fill it in. Runs of one kind of character count on (ABC, 123),
// optional parts are left out, and a repeated character is written
// three times when the pattern allows it.
type exampleWriter struct {
	b          strings.Builder
	steps      int  // nodes visited, bounding the work on a hostile pattern
	literal    bool // the sample has a character the pattern names
	broad      bool // the pattern takes nearly any character somewhere
	classes    int  // classes sampled
	digitsOnly bool // every class sampled takes digits only
}

// write appends a sample of re; false when it cannot write one.
func (g *exampleWriter) write(re *syntax.Regexp) bool {
	if g.steps++; g.steps > 1000 || g.b.Len() > 4*maxExampleLength {
		return false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	case syntax.OpLiteral:
		lit := string(re.Rune)
		if re.Flags&syntax.FoldCase != 0 {
			// The parser keeps (?i)abc as ABC; people write such codes
			// as patterns mostly spell them, in small letters.
			lit = strings.ToLower(lit)
		}
		g.b.WriteString(lit)
		g.literal = true
		return true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return g.chars(re, 1)
	case syntax.OpCapture:
		return g.write(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !g.write(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return g.write(re.Sub[0])
	case syntax.OpQuest:
		return true
	case syntax.OpStar:
		return g.repeat(re.Sub[0], 0, -1)
	case syntax.OpPlus:
		return g.repeat(re.Sub[0], 1, -1)
	case syntax.OpRepeat:
		return g.repeat(re.Sub[0], re.Min, re.Max)
	}
	return false // word boundaries and the like: no honest sample
}

// repeat writes sub between least and most times (most -1: no limit).
// A single character comes three times where allowed, so "\d+" reads
// 123; anything longer comes as few times as the pattern needs.
func (g *exampleWriter) repeat(sub *syntax.Regexp, least, most int) bool {
	n := least
	if oneChar(sub) {
		if n < 3 && (most < 0 || most >= 3) {
			n = 3
		} else if n < most && n < 3 {
			n = most
		}
		if sub.Op != syntax.OpLiteral {
			return g.chars(sub, n)
		}
	}
	for range n {
		if !g.write(sub) {
			return false
		}
	}
	return true
}

func oneChar(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 1
	}
	return false
}

// sampleRuns are the runs a class is sampled from, in order of
// preference: capitals, then small letters, digits and common marks.
var sampleRuns = [...]string{
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"abcdefghijklmnopqrstuvwxyz",
	"1234567890",
	"-_.@#+/:",
}

// chars writes n characters of a class (or any character): the first
// run of sampleRuns the class allows, counted on from its start.
func (g *exampleWriter) chars(re *syntax.Regexp, n int) bool {
	size := 0
	for i := 0; i+1 < len(re.Rune); i += 2 {
		size += int(re.Rune[i+1]-re.Rune[i]) + 1
	}
	if re.Op != syntax.OpCharClass || size > 1000 {
		g.broad = true
	}
	digits := re.Op == syntax.OpCharClass && len(re.Rune) == 2 && re.Rune[0] >= '0' && re.Rune[1] <= '9'
	g.digitsOnly = digits && (g.classes == 0 || g.digitsOnly)
	g.classes++
	in := func(r rune) bool {
		if re.Op != syntax.OpCharClass {
			return true
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= r && r <= re.Rune[i+1] {
				return true
			}
		}
		return false
	}
	for _, run := range sampleRuns {
		var allowed []rune
		for _, r := range run {
			if in(r) {
				allowed = append(allowed, r)
			}
		}
		if len(allowed) > 0 {
			for i := range n {
				g.b.WriteRune(allowed[i%len(allowed)])
			}
			return true
		}
	}
	// A class of other characters only (say, [é-ë]): its first that
	// shows plainly, looked for among its first few hundred.
	for i := 0; re.Op == syntax.OpCharClass && i+1 < len(re.Rune); i += 2 {
		for r := re.Rune[i]; r <= re.Rune[i+1] && r-re.Rune[i] < 256; r++ {
			if plainlyVisible(r) {
				g.b.WriteString(strings.Repeat(string(r), n))
				return true
			}
		}
	}
	return false
}
