package elicit

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is one reason a schema cannot be shown. Path is a JSON Pointer
// (RFC 6901) to the offending value: into the request params for
// ParseRequest ("/requestedSchema/properties/age/minimum"), into the
// schema for Parse ("/properties/age/minimum"). Messages are for the
// author of the server, who has to fix the schema.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// SchemaError lists every problem found in a request, not just the first,
// so a server author can fix a schema in one round.
type SchemaError struct {
	Problems []Problem `json:"problems"`
}

// maxErrorProblems bounds how many problems Error spells out.
const maxErrorProblems = 5

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("elicitation request refused: ")
	if len(e.Problems) == 0 {
		b.WriteString("invalid schema")
		return b.String()
	}
	for i, p := range e.Problems {
		if i == maxErrorProblems {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		if p.Path != "" {
			b.WriteString(p.Path)
			b.WriteString(": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// Parse parses a requestedSchema JSON text into a Form whose fields are in
// the order the text lists them. A schema that cannot be shown honestly
// is refused: the error is a *SchemaError listing every problem.
func Parse(schema []byte) (*Form, error) {
	var p schemaParser
	if len(schema) > MaxSchemaBytes {
		p.add("", "the schema is %d bytes; at most %d are allowed", len(schema), MaxSchemaBytes)
		return nil, p.err()
	}
	tr := newTreeReader(bytes.NewReader(schema), &p.probs)
	v, err := tr.value()
	if err == nil {
		err = tr.end()
	}
	if err != nil {
		p.probs = append(p.probs, syntaxProblem("", err))
		return nil, p.err()
	}
	form := p.form(&v, "")
	if len(p.probs) > 0 {
		return nil, p.err()
	}
	return form, nil
}

// schemaParser collects problems while it turns a JSON tree into a Form.
type schemaParser struct {
	probs []Problem
}

func (p *schemaParser) add(path, format string, args ...any) {
	p.probs = append(p.probs, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (p *schemaParser) err() error {
	return &SchemaError{Problems: p.probs}
}

// Keyword sets. A keyword in none of them is an annotation (x-…,
// examples, $comment, deprecated, …) and is ignored, as JSON Schema
// ignores unknown keywords. A known keyword that formbridge cannot check
// is refused: showing the field without it would let a person send an
// answer the server did not ask for.
var (
	// validationKeywords are keywords that constrain a value.
	validationKeywords = setOf("type", "enum", "enumNames", "oneOf", "anyOf", "allOf", "not", "const",
		"minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
		"exclusiveMaximum", "multipleOf", "items", "minItems", "maxItems", "uniqueItems", "contains",
		"minContains", "maxContains", "prefixItems", "additionalItems", "unevaluatedItems", "properties",
		"required", "additionalProperties", "patternProperties", "propertyNames", "minProperties",
		"maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
		"if", "then", "else", "$ref", "$dynamicRef", "$recursiveRef", "default", "title", "description")

	kindKeywords = map[string]map[string]bool{
		"string":  setOf("type", "title", "description", "default", "minLength", "maxLength", "pattern", "format", "enum", "enumNames", "oneOf"),
		"number":  setOf("type", "title", "description", "default", "minimum", "maximum"),
		"integer": setOf("type", "title", "description", "default", "minimum", "maximum"),
		"boolean": setOf("type", "title", "description", "default"),
		"array":   setOf("type", "title", "description", "default", "items", "minItems", "maxItems", "uniqueItems"),
	}

	rootKeywords = setOf("type", "properties", "required", "additionalProperties", "title", "description")

	itemsKeywords = setOf("type", "enum", "enumNames", "anyOf", "title", "description")
)

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// form checks the root of a requestedSchema.
func (p *schemaParser) form(root *jvalue, base string) *Form {
	if root.kind != jObject {
		p.add(base, "the schema must be a JSON object, not %s", root.typeName())
		return nil
	}
	switch t := root.get("type"); {
	case t == nil:
		p.add(base, `the schema has no "type"; it must be "object"`)
	case t.kind != jString || t.s != "object":
		p.add(base+"/type", `the schema's type must be "object"`)
	}
	for _, m := range root.obj {
		if validationKeywords[m.key] && !rootKeywords[m.key] {
			p.add(base+"/"+escapePointer(m.key), "%s is not supported at the top of a schema: formbridge shows a flat list of fields", m.key)
		}
	}
	if ap := root.get("additionalProperties"); ap != nil && ap.kind != jBool {
		p.add(base+"/additionalProperties", "additionalProperties must be true or false; extra fields cannot be shown")
	}
	p.text(root, base, "title")
	p.text(root, base, "description")

	form := &Form{}
	props := root.get("properties")
	switch {
	case props == nil:
		// No properties: a form of no fields, which asks only for
		// accept, decline or cancel.
	case props.kind != jObject:
		p.add(base+"/properties", "properties must be an object, not %s", props.typeName())
	default:
		if len(props.obj) > MaxProperties {
			p.add(base+"/properties", "the schema has %d properties; at most %d are allowed", len(props.obj), MaxProperties)
		}
		form.Fields = make([]Field, 0, len(props.obj))
		for i := range props.obj {
			m := &props.obj[i]
			if f, ok := p.field(m.key, &m.val, base+"/properties/"+escapePointer(m.key)); ok {
				form.Fields = append(form.Fields, f)
			}
		}
	}
	if req := root.get("required"); req != nil {
		p.required(form, props, req, base+"/required")
	}
	// Defaults are checked last: a required field's default must count
	// as an answer, and required is only known now.
	if props != nil && props.kind == jObject {
		for i := range form.Fields {
			f := &form.Fields[i]
			path := base + "/properties/" + escapePointer(f.Key) + "/default"
			if d := props.get(f.Key).get("default"); d != nil {
				p.defaultValue(f, d, path)
			}
		}
	}
	return form
}

// required applies the top-level required list.
func (p *schemaParser) required(form *Form, props, req *jvalue, path string) {
	if req.kind != jArray {
		p.add(path, "required must be an array of property names, not %s", req.typeName())
		return
	}
	for i := range req.arr {
		r := &req.arr[i]
		ipath := path + "/" + strconv.Itoa(i)
		if r.kind != jString {
			p.add(ipath, "required must list property names, not %s", r.typeName())
			continue
		}
		if f := form.Field(r.s); f != nil {
			f.Required = true
		} else if props == nil || props.kind != jObject || props.get(r.s) == nil {
			p.add(ipath, "%q is required but is not a property", r.s)
		}
	}
}

// field checks one property schema.
func (p *schemaParser) field(key string, v *jvalue, path string) (Field, bool) {
	f := Field{Key: key}
	if key == "" {
		p.add(path, "a property needs a non-empty name")
		return f, false
	}
	if utf8.RuneCountInString(key) > MaxTextRunes {
		p.add(path, "the property name is longer than %d characters", MaxTextRunes)
		return f, false
	}
	if v.kind != jObject {
		p.add(path, "a property must be a schema object, not %s", v.typeName())
		return f, false
	}
	t := v.get("type")
	typ := ""
	switch {
	case t == nil:
		p.add(path, `the property has no "type"; it must be one of string, number, integer, boolean or array`)
		return f, false
	case t.kind == jArray:
		p.add(path+"/type", "type must be a single type name, not a list")
		return f, false
	case t.kind != jString:
		p.add(path+"/type", "type must be a string, not %s", t.typeName())
		return f, false
	case t.s == "object":
		p.add(path+"/type", "nested objects cannot be shown: a form is a flat list of fields")
		return f, false
	case kindKeywords[t.s] == nil:
		p.add(path+"/type", "type %q is not supported; use string, number, integer, boolean or array", t.s)
		return f, false
	default:
		typ = t.s
	}
	allowed := kindKeywords[typ]
	ok := true
	for _, m := range v.obj {
		if !validationKeywords[m.key] || allowed[m.key] {
			continue
		}
		ok = false
		kpath := path + "/" + escapePointer(m.key)
		switch m.key {
		case "$ref", "$dynamicRef", "$recursiveRef":
			p.add(kpath, "%s is not supported: each property must be written out in full", m.key)
		case "required":
			p.add(kpath, "required belongs in the schema's top-level required list")
		case "properties", "additionalProperties", "patternProperties":
			p.add(kpath, "nested objects cannot be shown: a form is a flat list of fields")
		default:
			if anyKind(m.key) {
				p.add(kpath, "%s does not apply to a %s field", m.key, typ)
			} else {
				p.add(kpath, "%s is not supported", m.key)
			}
		}
	}
	f.Title = p.text(v, path, "title")
	f.Description = p.text(v, path, "description")
	f.Label = f.Title
	if strings.TrimSpace(f.Label) == "" {
		f.Label = Humanize(key)
	}
	switch typ {
	case "string":
		ok = p.stringField(&f, v, path) && ok
	case "number", "integer":
		f.Kind = KindNumber
		if typ == "integer" {
			f.Kind = KindInteger
		}
		ok = p.numberField(&f, v, path) && ok
	case "boolean":
		f.Kind = KindBoolean
	case "array":
		f.Kind = KindMultiSelect
		ok = p.arrayField(&f, v, path) && ok
	}
	return f, ok
}

// anyKind reports whether some field kind accepts keyword k.
func anyKind(k string) bool {
	for _, set := range kindKeywords {
		if set[k] {
			return true
		}
	}
	return k == "items" || k == "enumNames"
}

// text reads an optional string keyword within MaxTextRunes.
func (p *schemaParser) text(v *jvalue, path, key string) string {
	t := v.get(key)
	if t == nil {
		return ""
	}
	if t.kind != jString {
		p.add(path+"/"+key, "%s must be a string, not %s", key, t.typeName())
		return ""
	}
	if utf8.RuneCountInString(t.s) > MaxTextRunes {
		p.add(path+"/"+key, "%s is longer than %d characters", key, MaxTextRunes)
		return ""
	}
	return t.s
}

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
			re, err := regexp.Compile(pat.s)
			if err != nil {
				p.add(path+"/pattern", "pattern is not a regular expression formbridge can check (RE2 syntax: no lookaround or backreferences): %v", err)
				ok = false
				break
			}
			f.Pattern, f.pattern = pat.s, re
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

// enumOptions reads enum (and the legacy enumNames, its titles).
func (p *schemaParser) enumOptions(enum, names *jvalue, path string) ([]Option, bool) {
	epath := path + "/enum"
	if enum.kind != jArray {
		p.add(epath, "enum must be an array of strings, not %s", enum.typeName())
		return nil, false
	}
	if !p.optionCount(len(enum.arr), epath) {
		return nil, false
	}
	ok := true
	opts := make([]Option, 0, len(enum.arr))
	for i := range enum.arr {
		e := &enum.arr[i]
		if val, good := p.optionValue(e, epath+"/"+strconv.Itoa(i)); good {
			opts = append(opts, Option{Value: val, Title: val})
		} else {
			ok = false
		}
	}
	if names != nil {
		npath := path + "/enumNames"
		switch {
		case names.kind != jArray:
			p.add(npath, "enumNames must be an array of strings, not %s", names.typeName())
			ok = false
		case len(names.arr) != len(enum.arr):
			p.add(npath, "enumNames has %d names for %d enum values; they must match one to one", len(names.arr), len(enum.arr))
			ok = false
		case ok:
			for i := range names.arr {
				n := &names.arr[i]
				if title, good := p.optionTitle(n, npath+"/"+strconv.Itoa(i)); good {
					if title != "" {
						opts[i].Title = title
					}
				} else {
					ok = false
				}
			}
		}
	}
	return opts, p.uniqueOptions(opts, epath) && ok
}

// constOptions reads oneOf / anyOf entries of the form {const, title}.
func (p *schemaParser) constOptions(list *jvalue, path string) ([]Option, bool) {
	if list.kind != jArray {
		p.add(path, "the choices must be an array of {const, title} objects, not %s", list.typeName())
		return nil, false
	}
	if !p.optionCount(len(list.arr), path) {
		return nil, false
	}
	ok := true
	opts := make([]Option, 0, len(list.arr))
	for i := range list.arr {
		e := &list.arr[i]
		epath := path + "/" + strconv.Itoa(i)
		if e.kind != jObject {
			p.add(epath, "a choice must be a {const, title} object, not %s", e.typeName())
			ok = false
			continue
		}
		for _, m := range e.obj {
			if validationKeywords[m.key] && m.key != "const" && m.key != "title" && m.key != "description" {
				p.add(epath+"/"+escapePointer(m.key), "a choice may have only const and title; %s is not supported", m.key)
				ok = false
			}
		}
		c := e.get("const")
		if c == nil {
			p.add(epath, "a choice needs a const: the value sent when it is chosen")
			ok = false
			continue
		}
		val, good := p.optionValue(c, epath+"/const")
		if !good {
			ok = false
			continue
		}
		o := Option{Value: val, Title: val}
		if t := e.get("title"); t != nil {
			title, good := p.optionTitle(t, epath+"/title")
			if !good {
				ok = false
				continue
			}
			if title != "" {
				o.Title = title
			}
		}
		opts = append(opts, o)
	}
	return opts, p.uniqueOptions(opts, path) && ok
}

func (p *schemaParser) optionCount(n int, path string) bool {
	switch {
	case n == 0:
		p.add(path, "the list of choices is empty")
		return false
	case n > MaxOptions:
		p.add(path, "there are %d choices; at most %d are allowed", n, MaxOptions)
		return false
	}
	return true
}

func (p *schemaParser) optionValue(v *jvalue, path string) (string, bool) {
	switch {
	case v.kind != jString:
		p.add(path, "a choice's value must be a string, not %s", v.typeName())
	case v.s == "":
		p.add(path, "a choice's value must not be empty")
	case utf8.RuneCountInString(v.s) > MaxTextRunes:
		p.add(path, "a choice's value is longer than %d characters", MaxTextRunes)
	default:
		return v.s, true
	}
	return "", false
}

func (p *schemaParser) optionTitle(v *jvalue, path string) (string, bool) {
	switch {
	case v.kind != jString:
		p.add(path, "a choice's title must be a string, not %s", v.typeName())
	case utf8.RuneCountInString(v.s) > MaxTextRunes:
		p.add(path, "a choice's title is longer than %d characters", MaxTextRunes)
	default:
		return v.s, true
	}
	return "", false
}

// uniqueOptions refuses a value offered twice: the person could not tell
// which one they chose, and the server could not either.
func (p *schemaParser) uniqueOptions(opts []Option, path string) bool {
	if len(opts) < 2 {
		return true
	}
	seen := make(map[string]struct{}, len(opts))
	ok := true
	for _, o := range opts {
		if _, dup := seen[o.Value]; dup {
			p.add(path, "the choice %q is offered more than once", o.Value)
			ok = false
			continue
		}
		seen[o.Value] = struct{}{}
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

// defaultValue checks a default against the field's type and its own
// constraints, and stores it typed. An empty default ("" or []) means the
// field starts empty; it is kept, but counts as no answer.
func (p *schemaParser) defaultValue(f *Field, d *jvalue, path string) {
	bad := func(fe *FieldError) {
		p.add(path, "the default does not meet the field's own constraints (%s: %s)", fe.Code, fe.Message)
	}
	switch f.Kind {
	case KindString, KindSelect:
		if d.kind != jString {
			p.add(path, "the default must be a string, not %s", d.typeName())
			return
		}
		if d.s != "" {
			if fe := f.checkString(d.s); fe != nil {
				bad(fe)
				return
			}
		}
		f.Default = d.s
	case KindNumber, KindInteger:
		if d.kind != jNumber {
			p.add(path, "the default must be a number, not %s", d.typeName())
			return
		}
		x, err := strconv.ParseFloat(d.s, 64)
		if err != nil || math.IsInf(x, 0) {
			p.add(path, "the default is too large a number")
			return
		}
		if fe := f.checkNumber(x); fe != nil {
			bad(fe)
			return
		}
		if x == 0 {
			x = 0 // -0 is sent as 0, as Collect sends it
		}
		f.Default = x
	case KindBoolean:
		if d.kind != jBool {
			p.add(path, "the default must be true or false, not %s", d.typeName())
			return
		}
		f.Default = d.b
	case KindMultiSelect:
		if d.kind != jArray {
			p.add(path, "the default must be an array of choices, not %s", d.typeName())
			return
		}
		vals := make([]string, 0, len(d.arr))
		for i := range d.arr {
			if d.arr[i].kind != jString {
				p.add(path+"/"+strconv.Itoa(i), "a default choice must be a string, not %s", d.arr[i].typeName())
				return
			}
			vals = append(vals, d.arr[i].s)
		}
		if len(vals) > 0 {
			if fe := f.checkMulti(vals); fe != nil {
				bad(fe)
				return
			}
		}
		f.Default = f.inOptionOrder(vals)
	}
}
