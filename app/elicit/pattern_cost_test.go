package elicit

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// compiledCost is the compiled program (without its one-pass copy) in
// patternCost's units: its instructions and the runes they hold.
func compiledCost(t testing.TB, src string) int {
	t.Helper()
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatalf("compile %q: %v", src, err)
	}
	n := costPerInst * len(prog.Inst)
	for _, in := range prog.Inst {
		n += costPerRune * len(in.Rune)
	}
	return n
}

var costSamples = []string{
	`^PO-[0-9]{6}$`, `^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$`,
	`^\p{L}+$`, `^[\p{L}\p{N}]{1,64}$`, `^(?:[\p{L}\p{N}]{30}){30}$`,
	`^.{0,1000}$`, `^[\p{L} '-]{1,100}$`, `(?i)^hello world$`, `^(a|b|c|d)*$`,
	`^\p{Greek}{5,9}$`, `^[^\p{L}]{3}$`, `(?i)[a-z]{2,}x?`, `((a{2,3}){2,}|b)*`,
	`^(\d{1,3}\.){3}\d{1,3}$`, `x{0}`, `(?s).{3,}`, `\b\w+\B`, `[[:alpha:]]{0,5}`,
	// Alternations, whose one-pass program grows with the square of
	// their branches when anchored, and long literals.
	`^(?:Mr|Mrs|Ms|Dr|Prof)\.? [A-Z][a-z]+$`, alternation(40, true), alternation(40, false),
	`^(?:` + strings.Repeat("ab|", 30) + `c)$`, `^` + strings.Repeat("abcdefghij", 90) + `$`,
	`^(?:(?:x|y)?z|q*)+$`,
}

// alternation is 0x100 0 | 0x101 0 | … with n branches, anchored or not.
func alternation(n int, anchored bool) string {
	branches := make([]string, n)
	for i := range branches {
		branches[i] = string(rune(0x100+i)) + "0"
	}
	p := "(?:" + strings.Join(branches, "|") + ")"
	if anchored {
		p = "^" + p + "$"
	}
	return p
}

func TestPatternCostBoundsTheProgram(t *testing.T) {
	t.Parallel()
	for _, src := range costSamples {
		est, err := weighPattern(src)
		if err != nil {
			t.Fatalf("weighPattern(%q): %v", src, err)
		}
		// Past an alternation the estimate counts the one-pass copy too,
		// which the program alone does not show.
		if real := compiledCost(t, src); est < real {
			t.Errorf("patternCost(%q) = %d, under the compiled program's %d", src, est, real)
		} else if est > 4*real+4*costPerInst && !strings.Contains(src, "|") {
			t.Errorf("patternCost(%q) = %d, far over the compiled program's %d: it would refuse good patterns", src, est, real)
		}
	}
}

// FuzzPatternCost: the estimate is never under the real program's size,
// for any pattern regexp.Compile takes.
func FuzzPatternCost(f *testing.F) {
	for _, s := range costSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > MaxPatternLength {
			return
		}
		est, err := weighPattern(src)
		if err != nil || est > 4*MaxPatternCost {
			return // refused either way; compiling it could take long
		}
		if _, err := regexp.Compile(src); err != nil {
			return
		}
		if real := compiledCost(t, src); est < real {
			t.Errorf("patternCost(%q) = %d, under the compiled program's %d", src, est, real)
		}
	})
}

// TestPatternBytesBoundsTheHeap: what PatternBytes counts for a form is
// no less than the heap its compiled patterns hold. Not parallel: it
// reads the heap.
func TestPatternBytesBoundsTheHeap(t *testing.T) {
	var live runtime.MemStats
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&live)
		return live.HeapAlloc
	}
	for _, src := range append(costSamples, `^\S+\s\S+$`, `^[\u00C0-\u00FF ]{1,80}$`, `^[^]{0,500}$`) {
		re2, err := ecmaToRE2(src)
		if err != nil {
			continue // Go's syntax only, refused as a schema's pattern
		}
		if cost, _ := weighPattern(re2); cost > MaxPatternCost {
			continue // refused, never compiled for a form
		}
		form, err := Parse([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":` + strconv.Quote(src) + `}}}`))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		want := PatternBytes(form)
		const copies = 8
		before := heap()
		kept := make([]*regexp.Regexp, copies)
		for i := range kept {
			kept[i] = regexp.MustCompile(re2)
		}
		held := int(heap()-before) / copies
		runtime.KeepAlive(kept)
		if held > want {
			t.Errorf("%q: a compiled copy holds %d bytes, PatternBytes counts %d", src, held, want)
		}
	}
}

func TestParseRefusesPatternsTooLargeToCompile(t *testing.T) {
	t.Parallel()
	field := func(pattern string) string {
		return `{"type":"string","pattern":` + strconv.Quote(pattern) + `}`
	}
	tests := []struct {
		name, schema string
		want         []string // problem paths; none when accepted
	}{
		// 27 bytes that compile to 8 MB.
		{"repeat of a repeat", `{"type":"object","properties":{"a":` + field(`^(?:[\p{L}\p{N}]{30}){30}$`) + `}}`, []string{"/properties/a/pattern"}},
		{"counted letters", `{"type":"object","properties":{"a":` + field(`^[\p{L} '-]{1,100}$`) + `}}`, []string{"/properties/a/pattern"}},
		{"letters with maxLength", `{"type":"object","properties":{"a":{"type":"string","pattern":"^[\\p{L} '-]+$","maxLength":100}}}`, nil},
		{"an everyday code", `{"type":"object","properties":{"a":` + field(`^PO-[0-9]{6}$`) + `}}`, nil},
	}
	// Each under the bound, too many together: the first field past the
	// form's bound is refused.
	const each = `^[\p{L}\p{N}]{1,8}$`
	cost, _ := weighPattern(each)
	if cost > MaxPatternCost || 2*cost > MaxFormPatternCost {
		t.Fatalf("%s costs %d: the case needs one under MaxPatternCost, several to pass MaxFormPatternCost", each, cost)
	}
	over := MaxFormPatternCost / cost // the first index past the bound
	var props []string
	for i := range over + 2 {
		props = append(props, fmt.Sprintf(`"f%d":%s`, i, field(each)))
	}
	tests = append(tests, struct {
		name, schema string
		want         []string
	}{"too many together", `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`,
		[]string{fmt.Sprintf("/properties/f%d/pattern", over), fmt.Sprintf("/properties/f%d/pattern", over+1)}})

	for _, tt := range tests {
		_, err := Parse([]byte(tt.schema))
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.want != nil && err == nil:
			t.Errorf("%s: accepted, want refused at %v", tt.name, tt.want)
		case tt.want != nil:
			if got := problemPaths(t, err); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("%s: problems at %v, want %v", tt.name, got, tt.want)
			}
		}
	}
}

// TestFirstRunes: what a match can start with ends at the first part
// that cannot match nothing, so x[\p{L}] starts with x alone.
func TestFirstRunes(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]int{`x\p{L}`: 2, `x?[a-c]`: 4, `(?:ab|cd)e`: 4, `^x`: 2, `a*b*`: 4, `(x[a-c])z`: 2} {
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := firstRunes(re); got != want {
			t.Errorf("firstRunes(%q) = %d, want %d", src, got, want)
		}
	}
	if got := PatternBytes(&Form{Fields: []Field{{Key: "a", Kind: KindString}}}); got != 0 {
		t.Errorf("a form without patterns weighs %d bytes", got)
	}
}
