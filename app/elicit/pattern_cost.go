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
	// 512 KB once compiled.
	MaxPatternCost = 64000
	// MaxFormPatternCost bounds a form's patterns together: about 4 MB.
	MaxFormPatternCost = 512000
)

// costCeiling is where patternCost stops counting, so no product overflows.
const costCeiling = 1 << 30

// patternCost is an upper bound on the memory re takes once compiled,
// in units of about 8 bytes: the program's instructions (costPerInst
// each) and the runes they hold (costPerRune each), with every repeat
// expanded, as regexp.Compile expands them, and the one-pass copy it
// makes of a pattern anchored at its start. It reads only the parse
// tree, so weighing a pattern costs no more than parsing it.
func patternCost(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		// An instruction per rune, holding it and its other case.
		return mulCost(len(re.Rune), costPerInst+2*costPerRune)
	case syntax.OpCharClass:
		return addCost(costPerInst, mulCost(len(re.Rune), costPerRune)) // the ranges' bounds
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return costPerInst + 4*costPerRune // any but newline: a class of two ranges
	case syntax.OpCapture:
		return addCost(2*costPerInst, patternCost(re.Sub[0]))
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		// A branch, and one more when x* of an x that can be empty
		// compiles as (x+)?.
		return addCost(2*costPerInst, patternCost(re.Sub[0]))
	case syntax.OpRepeat:
		copies := re.Max
		if copies < 0 { // x{n,}: n copies, the last one starred
			copies = re.Min + 1
		}
		return addCost(costPerInst, mulCost(max(copies, 1), addCost(costPerInst, patternCost(re.Sub[0]))))
	case syntax.OpConcat:
		return sumCost(re.Sub)
	case syntax.OpAlternate:
		// The one-pass copy keeps, at each of the k-1 branch points, the
		// first runes of every branch after it: about k*k/2 branches' in
		// all, not k.
		return addCost(sumCost(re.Sub), mulCost(len(re.Sub)/2, mulCost(firstRunes(re), costPerRune)))
	default: // anchors, word boundaries, empty and no match: one instruction
		return costPerInst
	}
}

// Units of patternCost: an instruction (about 40 bytes, and again in the
// one-pass copy) and a rune (4 bytes, again in the copy, and the copy's
// sets of first runes).
const (
	costPerInst = 16
	costPerRune = 3
)

func sumCost(subs []*syntax.Regexp) int {
	total := costPerInst
	for _, sub := range subs {
		total = addCost(total, addCost(costPerInst, patternCost(sub)))
	}
	return total
}

// firstRunes bounds how many runes describe what re's matches can start
// with: a rune with its other case, a class's ranges.
func firstRunes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return 2
	case syntax.OpCharClass:
		return len(re.Rune)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return firstRunes(re.Sub[0])
	case syntax.OpConcat:
		// Up to the first part that cannot match nothing.
		total := 0
		for _, sub := range re.Sub {
			total = addCost(total, firstRunes(sub))
			if !matchesEmpty(sub) {
				break
			}
		}
		return total
	case syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			total = addCost(total, firstRunes(sub))
		}
		return total
	default: // anchors, boundaries, empty and no match start with nothing
		return 0
	}
}

// matchesEmpty reports whether re may match the empty string.
func matchesEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return matchesEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || matchesEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !matchesEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if matchesEmpty(sub) {
				return true
			}
		}
		return false
	default: // star, quest, empty, anchors, boundaries
		return true
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
	return addCost(4*costPerInst, patternCost(re)), nil
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
		total = addCost(total, addCost(patternBaseBytes, mulCost(patternBytesPerUnit, cost)))
	}
	return total
}

// What a compiled pattern takes, measured with runtime.MemStats across
// patterns of every shape (TestPatternBytesBoundsTheHeap): ~2 KB for the
// smallest, and at most ~8 bytes per unit of patternCost for large ones.
const (
	patternBaseBytes    = 4 << 10
	patternBytesPerUnit = 8
)
