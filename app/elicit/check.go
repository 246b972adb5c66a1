package elicit

import (
	"math"
	"regexp"
	"unicode/utf8"
)

// This file holds the constraint checks shared by Parse (for defaults),
// Collect (for what a person typed) and Validate (for what a program
// sent). Each takes an answer already known to be of the field's type and
// non-empty, so the three callers agree on what a valid answer is.

// maxSafeInteger is the largest integer a float64 (and so a JSON number
// in most peers) holds exactly: 2^53 - 1.
const maxSafeInteger = 1<<53 - 1

// fail builds the FieldError for code on f, with its plain message.
func (f *Field) fail(code string) *FieldError {
	return &FieldError{Field: f.Key, Code: code, Message: f.message(code)}
}

// checkString checks a non-empty string answer of a string or select field.
func (f *Field) checkString(s string) *FieldError {
	if f.Kind == KindSelect {
		if !f.hasOption(s) {
			return f.fail(CodeNotAnOption)
		}
		return nil
	}
	if f.MinLength != nil || f.MaxLength != nil {
		// JSON Schema counts length in code points (RFC 8259 characters).
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength {
			return f.fail(CodeTooShort)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return f.fail(CodeTooLong)
		}
	}
	if f.Format != FormatNone && !validFormat(f.Format, s) {
		fe := f.fail(CodeFormat)
		if f.Format == FormatEmail && !isASCII(s) {
			fe.Message = "Enter the email address in plain letters a to z, without accents, like name@example.com"
		}
		return fe
	}
	if f.Pattern != "" {
		re := f.regexp()
		// A pattern that no longer compiles cannot be met: refuse rather
		// than let an unchecked answer through.
		if re == nil || !re.MatchString(s) {
			return f.fail(CodePattern)
		}
	}
	return nil
}

// regexp returns the compiled pattern. Parse and UnmarshalJSON compile
// it once; a Field built another way compiles it on each use.
func (f *Field) regexp() *regexp.Regexp {
	if f.pattern != nil {
		return f.pattern
	}
	re, err := regexp.Compile(f.Pattern)
	if err != nil {
		return nil
	}
	return re
}

// checkNumber checks a finite number answer of a number or integer field.
func (f *Field) checkNumber(x float64) *FieldError {
	if f.Kind == KindInteger {
		if x != math.Trunc(x) {
			return f.fail(CodeNotInteger)
		}
		// Beyond 2^53 a float64 no longer holds every integer: the number
		// sent would not be the number typed.
		if x > maxSafeInteger {
			return f.fail(CodeTooLarge)
		}
		if x < -maxSafeInteger {
			return f.fail(CodeTooSmall)
		}
	}
	if f.Minimum != nil && x < *f.Minimum {
		return f.fail(CodeTooSmall)
	}
	if f.Maximum != nil && x > *f.Maximum {
		return f.fail(CodeTooLarge)
	}
	return nil
}

// checkMulti checks a non-empty multi select answer: every value an
// option, none twice, and the count within minItems and maxItems.
//
// A list longer than the options fails within its first len(Options)+1
// values (one is not an option or is chosen twice), so a huge list from
// a program costs no more than a short one.
func (f *Field) checkMulti(vals []string) *FieldError {
	seen := make([]bool, len(f.Options))
	for _, v := range vals {
		i := f.optionIndex(v)
		if i < 0 {
			return f.fail(CodeNotAnOption)
		}
		if seen[i] {
			return f.fail(CodeDuplicate)
		}
		seen[i] = true
	}
	if f.MinItems != nil && len(vals) < *f.MinItems {
		return f.fail(CodeTooFew)
	}
	if f.MaxItems != nil && len(vals) > *f.MaxItems {
		return f.fail(CodeTooMany)
	}
	return nil
}

// hasOption reports whether v is the value of one of f's options.
func (f *Field) hasOption(v string) bool {
	return f.optionIndex(v) >= 0
}

// optionIndex returns the index of the option with value v, or -1.
func (f *Field) optionIndex(v string) int {
	for i := range f.Options {
		if f.Options[i].Value == v {
			return i
		}
	}
	return -1
}

// inOptionOrder returns the chosen values sorted into option order, each
// once. Values that are not options are dropped; callers check first.
func (f *Field) inOptionOrder(vals []string) []string {
	out := make([]string, 0, len(vals))
	for _, o := range f.Options {
		for _, v := range vals {
			if v == o.Value {
				out = append(out, v)
				break
			}
		}
	}
	return out
}
