package elicit

import (
	"math"
	"regexp"
	"strconv"
)

// This file reads the keywords of each kind of field: lengths, format
// and pattern of a string; bounds of a number; items and counts of a
// multi select.

func (p *schemaParser) stringField(f *Field, v *jvalue, path string) bool {
	ok := true
	f.Kind = KindString
	enum, oneOf, names := v.get("enum"), v.get("oneOf"), v.get("enumNames")
	switch {
	case enum != nil && oneOf != nil:
		p.add(path+"/oneOf", "use either enum or oneOf for the choices, not both")
		ok = false
	case enum != nil:
		f.Kind = KindSelect
		f.Options, ok = p.enumOptions(enum, names, path)
	case oneOf != nil:
		f.Kind = KindSelect
		f.Options, ok = p.constOptions(oneOf, path+"/oneOf")
	}
	if names != nil && enum == nil {
		p.add(path+"/enumNames", "enumNames needs an enum to name")
		ok = false
	}
	if f.Kind == KindSelect {
		for _, k := range [...]string{"minLength", "maxLength", "pattern", "format"} {
			if v.get(k) != nil {
				p.add(path+"/"+k, "%s cannot be combined with a list of choices", k)
				ok = false
			}
		}
		return ok
	}
	var okMin, okMax bool
	f.MinLength, okMin = p.count(v, path, "minLength")
	f.MaxLength, okMax = p.count(v, path, "maxLength")
	ok = ok && okMin && okMax
	if f.MinLength != nil && f.MaxLength != nil && *f.MinLength > *f.MaxLength {
		p.add(path+"/minLength", "minLength (%d) is greater than maxLength (%d)", *f.MinLength, *f.MaxLength)
		ok = false
	}
	if fm := v.get("format"); fm != nil {
		switch {
		case fm.kind != jString:
			p.add(path+"/format", "format must be a string, not %s", fm.typeName())
			ok = false
		case fm.s == string(FormatEmail) || fm.s == string(FormatURI) || fm.s == string(FormatDate) || fm.s == string(FormatDateTime):
			f.Format = Format(fm.s)
		default:
			p.add(path+"/format", "format %q is not supported; use email, uri, date or date-time", fm.s)
			ok = false
		}
	}
	if pat := v.get("pattern"); pat != nil {
		switch {
		case pat.kind != jString:
			p.add(path+"/pattern", "pattern must be a string, not %s", pat.typeName())
			ok = false
		case len(pat.s) > MaxPatternLength:
			p.add(path+"/pattern", "pattern is longer than %d bytes", MaxPatternLength)
			ok = false
		default:
			// Checked as the server's JavaScript validator reads it; the
			// form carries the same pattern in RE2 (pattern_ecma.go).
			src, err := ecmaToRE2(pat.s)
			if err != nil {
				p.add(path+"/pattern", "pattern cannot be read as JSON Schema reads it: %v", err)
				ok = false
				break
			}
			if !p.weighPattern(src, path+"/pattern") {
				ok = false
				break
			}
			re, err := regexp.Compile(src)
			if err != nil {
				p.add(path+"/pattern", "pattern is not a regular expression formbridge can check (no lookaround or backreferences): %v", err)
				ok = false
				break
			}
			f.Pattern, f.pattern = src, re
			if f.Format == FormatNone {
				f.Example = patternExample(src, re, f.MinLength, f.MaxLength)
			}
		}
	}
	return ok
}

func (p *schemaParser) numberField(f *Field, v *jvalue, path string) bool {
	var okMin, okMax bool
	f.Minimum, okMin = p.number(v, path, "minimum")
	f.Maximum, okMax = p.number(v, path, "maximum")
	if !okMin || !okMax {
		return false
	}
	if f.Minimum != nil && f.Maximum != nil {
		if *f.Minimum > *f.Maximum {
			p.add(path+"/minimum", "minimum (%s) is greater than maximum (%s)", formatNumber(*f.Minimum), formatNumber(*f.Maximum))
			return false
		}
		if f.Kind == KindInteger && math.Ceil(*f.Minimum) > math.Floor(*f.Maximum) {
			p.add(path+"/minimum", "no whole number lies between minimum (%s) and maximum (%s)", formatNumber(*f.Minimum), formatNumber(*f.Maximum))
			return false
		}
	}
	// Past 2^53 a JSON number no longer holds every whole number, so the
	// bridge takes none there (checkNumber): a range wholly beyond could
	// never be answered.
	if f.Kind == KindInteger {
		switch {
		case f.Minimum != nil && *f.Minimum > maxSafeInteger:
			p.add(path+"/minimum", "minimum (%s) is past %d, beyond which whole numbers cannot be sent exactly", formatNumber(*f.Minimum), int64(maxSafeInteger))
			return false
		case f.Maximum != nil && *f.Maximum < -maxSafeInteger:
			p.add(path+"/maximum", "maximum (%s) is below -%d, beyond which whole numbers cannot be sent exactly", formatNumber(*f.Maximum), int64(maxSafeInteger))
			return false
		}
	}
	return true
}

func (p *schemaParser) arrayField(f *Field, v *jvalue, path string) bool {
	ok := true
	items := v.get("items")
	ipath := path + "/items"
	switch {
	case items == nil:
		p.add(path, "a list field needs items with its choices (items.enum or items.anyOf)")
		ok = false
	case items.kind != jObject:
		p.add(ipath, "items must be a schema object, not %s", items.typeName())
		ok = false
	default:
		ok = p.items(f, items, ipath)
	}
	var okMin, okMax bool
	f.MinItems, okMin = p.count(v, path, "minItems")
	f.MaxItems, okMax = p.count(v, path, "maxItems")
	ok = ok && okMin && okMax
	if f.MinItems != nil && f.MaxItems != nil && *f.MinItems > *f.MaxItems {
		p.add(path+"/minItems", "minItems (%d) is greater than maxItems (%d)", *f.MinItems, *f.MaxItems)
		ok = false
	}
	if f.MinItems != nil && len(f.Options) > 0 && *f.MinItems > len(f.Options) {
		p.add(path+"/minItems", "minItems (%d) is more than the %d choices offered", *f.MinItems, len(f.Options))
		ok = false
	}
	if u := v.get("uniqueItems"); u != nil && u.kind != jBool {
		p.add(path+"/uniqueItems", "uniqueItems must be true or false")
		ok = false
	}
	return ok
}

// items checks the items schema of a multi select.
func (p *schemaParser) items(f *Field, items *jvalue, path string) bool {
	ok := true
	for _, m := range items.obj {
		if validationKeywords[m.key] && !itemsKeywords[m.key] {
			kpath := path + "/" + escapePointer(m.key)
			switch m.key {
			case "$ref", "$dynamicRef", "$recursiveRef":
				p.add(kpath, "%s is not supported: each property must be written out in full", m.key)
			case "properties", "additionalProperties", "patternProperties", "required":
				p.add(kpath, "lists of objects cannot be shown")
			default:
				p.add(kpath, "%s is not supported in items; a list field offers choices only", m.key)
			}
			ok = false
		}
	}
	if t := items.get("type"); t != nil {
		switch {
		case t.kind == jString && t.s == "string":
		case t.kind == jString && t.s == "object":
			p.add(path+"/type", "lists of objects cannot be shown")
			return false
		case t.kind == jString:
			p.add(path+"/type", "lists of %q cannot be shown; a list field offers text choices only", t.s)
			return false
		default:
			p.add(path+"/type", `items type must be "string"`)
			return false
		}
	}
	enum, anyOf := items.get("enum"), items.get("anyOf")
	names := items.get("enumNames")
	switch {
	case enum != nil && anyOf != nil:
		p.add(path+"/anyOf", "use either enum or anyOf for the choices, not both")
		return false
	case enum != nil:
		var okOpts bool
		f.Options, okOpts = p.enumOptions(enum, names, path)
		ok = ok && okOpts
	case anyOf != nil:
		var okOpts bool
		f.Options, okOpts = p.constOptions(anyOf, path+"/anyOf")
		ok = ok && okOpts
	default:
		p.add(path, "a list field must offer its choices in items.enum or items.anyOf; free-text lists cannot be shown")
		return false
	}
	if names != nil && enum == nil {
		p.add(path+"/enumNames", "enumNames needs an enum to name")
		ok = false
	}
	return ok
}

// maxCount bounds a length or item count: beyond it a limit means nothing
// on a form, and it still fits an int on every platform.
const maxCount = math.MaxInt32

// count reads an optional non-negative whole-number keyword.
func (p *schemaParser) count(v *jvalue, path, key string) (*int, bool) {
	c := v.get(key)
	if c == nil {
		return nil, true
	}
	if c.kind == jNumber {
		x, err := strconv.ParseFloat(c.s, 64)
		if err == nil && x == math.Trunc(x) && x >= 0 && x <= maxCount {
			n := int(x)
			return &n, true
		}
	}
	p.add(path+"/"+key, "%s must be a whole number from 0 to %d", key, maxCount)
	return nil, false
}

// number reads an optional finite number keyword.
func (p *schemaParser) number(v *jvalue, path, key string) (*float64, bool) {
	c := v.get(key)
	if c == nil {
		return nil, true
	}
	if c.kind != jNumber {
		p.add(path+"/"+key, "%s must be a number, not %s", key, c.typeName())
		return nil, false
	}
	x, err := strconv.ParseFloat(c.s, 64)
	if err != nil || math.IsInf(x, 0) {
		p.add(path+"/"+key, "%s is too large a number", key)
		return nil, false
	}
	return &x, true
}

// weighPattern refuses a pattern whose compiled program would be too
// large, alone or with the form's other patterns, before it is compiled
// (see MaxPatternCost). A pattern that does not parse is left to
// regexp.Compile, which says why.
func (p *schemaParser) weighPattern(src, path string) bool {
	cost, err := weighPattern(src)
	switch {
	case err != nil:
		return true
	case cost > MaxPatternCost:
		p.add(path, "pattern is too large to check once compiled (a repeat count multiplies what it repeats, a class like \\p{L} holds hundreds of ranges, and each alternative adds to the others): write + or * instead of {m,n} and set minLength and maxLength, or offer a list of values as enum")
		return false
	case p.patternCost+cost > MaxFormPatternCost:
		p.add(path, "the form's patterns together are too large to check once compiled: make them simpler, or use fewer")
		return false
	}
	p.patternCost += cost
	return true
}
