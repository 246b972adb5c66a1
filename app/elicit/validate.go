package elicit

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// maxUnknownKeyErrors bounds the unknown_key errors Validate lists.
const maxUnknownKeyErrors = MaxProperties

// Validate checks content from anywhere against the form: what a widget
// sent, what a host posted, what a test built. Content is as
// encoding/json decodes it (float64 numbers, []any arrays); json.Number,
// Go integers and []string are accepted too, so callers need not convert
// first. It reports keys that are not fields, answers of the wrong type,
// every constraint, and required fields left out; nil means valid.
//
// An empty answer ("" or []) for a required field counts as missing, as
// it does in Collect: a person who left the field empty did not answer.
func (f *Form) Validate(content map[string]any) []FieldError {
	var errs []FieldError
	var fields []Field
	if f != nil {
		fields = f.Fields
	}
	for i := range fields {
		fd := &fields[i]
		v, ok := content[fd.Key]
		if !ok {
			if fd.Required {
				errs = append(errs, *fd.fail(CodeRequired))
			}
			continue
		}
		if fe := fd.validate(v); fe != nil {
			errs = append(errs, *fe)
		}
	}
	known := make(map[string]bool, len(fields))
	for i := range fields {
		known[fields[i].Key] = true
	}
	var unknown []string
	for k := range content {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown) // map order is random; errors must not be
	// A program that sends thousands of stray keys learns enough from
	// the first few; the errors go back over the wire.
	if len(unknown) > maxUnknownKeyErrors {
		unknown = unknown[:maxUnknownKeyErrors]
	}
	for _, k := range unknown {
		errs = append(errs, *(&Field{Key: k}).fail(CodeUnknownKey))
	}
	return errs
}

// validate checks one present answer of a program.
func (f *Field) validate(v any) *FieldError {
	switch f.Kind {
	case KindString, KindSelect:
		s, ok := v.(string)
		if !ok {
			return f.fail(CodeWrongType)
		}
		if s == "" && f.Required {
			return f.fail(CodeRequired)
		}
		return f.checkString(s)
	case KindNumber, KindInteger:
		x, ok := toFloat(v)
		if !ok {
			return f.fail(CodeWrongType)
		}
		return f.checkNumber(x)
	case KindBoolean:
		if _, ok := v.(bool); !ok {
			return f.fail(CodeWrongType)
		}
		return nil
	case KindMultiSelect:
		vals, ok := toStrings(v)
		if !ok {
			return f.fail(CodeWrongType)
		}
		if len(vals) == 0 {
			switch {
			case f.Required:
				return f.fail(CodeRequired)
			case f.MinItems != nil && *f.MinItems > 0:
				return f.fail(CodeTooFew)
			}
			return nil
		}
		return f.checkMulti(vals)
	}
	return f.fail(CodeWrongType)
}

// toFloat reads a finite JSON number in any form a Go program may hold one.
func toFloat(v any) (float64, bool) {
	var x float64
	switch n := v.(type) {
	case float64:
		x = n
	case float32:
		x = float64(n)
	case json.Number:
		var err error
		x, err = strconv.ParseFloat(string(n), 64)
		if err != nil || !isJSONNumber(string(n)) {
			return 0, false
		}
	case int:
		x = float64(n)
	case int64:
		x = float64(n)
	case int32:
		x = float64(n)
	case uint:
		x = float64(n)
	case uint64:
		x = float64(n)
	case uint32:
		x = float64(n)
	default:
		return 0, false
	}
	return x, !math.IsNaN(x) && !math.IsInf(x, 0)
}

// toStrings reads a JSON array of strings.
func toStrings(v any) ([]string, bool) {
	switch a := v.(type) {
	case []string:
		return a, true
	case []any:
		out := make([]string, len(a))
		for i, e := range a {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// isJSONNumber reports whether s is a number as RFC 8259 §6 writes it:
// -? int frac? exp?. strconv.ParseFloat also takes "Inf", "0x1p3" and
// "1_000", which are not numbers a person or a JSON peer writes.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	start := i
	if digits() == 0 || (s[start] == '0' && i-start > 1) {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
