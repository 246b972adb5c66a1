package elicit

import "regexp/syntax"

// A pattern is short text, but its compiled program can be huge: a
// repeat count copies what it repeats, and a class such as \p{L} is
// hundreds of ranges, so `^(?:[\p{L}\p{N}]{30}){30}$` (27 bytes) compiles
// to 8 MB, and a hundred of them took a bridge past its memory. Patterns
// are weighed before they are compiled, and the weight is counted in
// what the bridge holds for a pending request.
const (
	// MaxPatternCost bounds one pattern, in patternCost's units: about
	// 480 KB once compiled. `^[\p{L} '-]+$` costs 1,330; the same with
	// {1,100} instead of + costs 133,000 (use maxLength for the count).
	MaxPatternCost = 20000
	// MaxFormPatternCost bounds a form's patterns together.
	MaxFormPatternCost = 200000
)

// costCeiling is where patternCost stops counting, so no product overflows.
const costCeiling = 1 << 30

// patternCost is an upper bound on the size of re's compiled program
// (regexp/syntax.Prog): its instructions plus the runes they hold, with
// every repeat expanded, as regexp.Compile expands them. It reads only
// the parse tree, so weighing a pattern costs no more than parsing it.
func patternCost(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return 2*len(re.Rune) + 1 // a rune per instruction, and its other case
	case syntax.OpCharClass:
		return len(re.Rune) + 2 // the ranges' bounds
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return addCost(2, patternCost(re.Sub[0]))
	case syntax.OpRepeat:
		copies := re.Max
		if copies < 0 { // x{n,}: n copies, the last one starred
			copies = re.Min + 1
		}
		return addCost(1, mulCost(max(copies, 1), addCost(2, patternCost(re.Sub[0]))))
	case syntax.OpConcat, syntax.OpAlternate:
		total := 1
		for _, sub := range re.Sub {
			total = addCost(total, addCost(2, patternCost(sub)))
		}
		return total
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 6 // any but newline compiles as a class of two ranges
	default: // anchors, word boundaries, empty and no match: one instruction
		return 2
	}
}

func addCost(a, b int) int { return min(a+b, costCeiling) }

func mulCost(a, b int) int {
	if a != 0 && b > costCeiling/a {
		return costCeiling
	}
	return min(a*b, costCeiling)
}

// weighPattern parses src as regexp.Compile does and returns its
// patternCost; an error for a pattern regexp.Compile would refuse too.
func weighPattern(src string) (int, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return 0, err
	}
	// Every program also has a fail instruction, the whole match's
	// capture and the match itself.
	return addCost(4, patternCost(re)), nil
}

// PatternBytes estimates the memory f's compiled patterns take (see
// TestPatternBytesBoundsTheHeap): the bridge counts it, with the
// request's own bytes, against what it may hold pending.
func PatternBytes(f *Form) int {
	if f == nil {
		return 0
	}
	total := 0
	for i := range f.Fields {
		if f.Fields[i].Pattern == "" {
			continue
		}
		cost, err := weighPattern(f.Fields[i].Pattern)
		if err != nil {
			continue // not a pattern a parsed Form holds
		}
		total = addCost(total, addCost(patternBaseBytes, mulCost(patternBytesPerCost, cost)))
	}
	return total
}

// What a compiled pattern takes, measured with runtime.MemStats across
// patterns of every shape: at most ~2.3 KB for the smallest, and ~21
// bytes per unit of patternCost for large ones.
const (
	patternBaseBytes    = 4 << 10
	patternBytesPerCost = 24
)
