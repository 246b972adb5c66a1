package elicit

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
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
	probs       []Problem
	patternCost int // of the patterns accepted so far (weighPattern)
}

func (p *schemaParser) add(path, format string, args ...any) {
	p.probs = append(p.probs, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// maxProblems bounds the problems a SchemaError lists: they go back to
// the server over the wire, and a hundred are enough to fix a schema by.
const maxProblems = 100

func (p *schemaParser) err() error {
	probs := p.probs
	if len(probs) > maxProblems {
		more := len(probs) - maxProblems + 1
		probs = append(probs[:maxProblems-1:maxProblems-1], Problem{Message: strconv.Itoa(more) + " more problems are not listed"})
	}
	return &SchemaError{Problems: probs}
}

// Keyword sets. A keyword in none of them is an annotation (x-…,
// examples, $comment, deprecated, …) and is ignored, as JSON Schema
// ignores unknown keywords. A known keyword that formbridge cannot check
// is refused: showing the field without it would let a person send an
// answer the server did not ask for.
//
// They are map literals, not built by a function at init, so the linker
// drops them from the widget, which does not parse schemas.
var (
	// validationKeywords are keywords that constrain a value.
	validationKeywords = map[string]bool{
		"type": true, "enum": true, "enumNames": true, "oneOf": true, "anyOf": true, "allOf": true, "not": true, "const": true,
		"minLength": true, "maxLength": true, "pattern": true, "format": true, "minimum": true, "maximum": true,
		"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true, "items": true, "minItems": true,
		"maxItems": true, "uniqueItems": true, "contains": true, "minContains": true, "maxContains": true,
		"prefixItems": true, "additionalItems": true, "unevaluatedItems": true, "properties": true, "required": true,
		"additionalProperties": true, "patternProperties": true, "propertyNames": true, "minProperties": true,
		"maxProperties": true, "dependentRequired": true, "dependentSchemas": true, "dependencies": true,
		"unevaluatedProperties": true, "if": true, "then": true, "else": true, "$ref": true, "$dynamicRef": true,
		"$recursiveRef": true, "default": true, "title": true, "description": true,
	}

	kindKeywords = map[string]map[string]bool{
		"string":  map[string]bool{"type": true, "title": true, "description": true, "default": true, "minLength": true, "maxLength": true, "pattern": true, "format": true, "enum": true, "enumNames": true, "oneOf": true},
		"number":  map[string]bool{"type": true, "title": true, "description": true, "default": true, "minimum": true, "maximum": true},
		"integer": map[string]bool{"type": true, "title": true, "description": true, "default": true, "minimum": true, "maximum": true},
		"boolean": map[string]bool{"type": true, "title": true, "description": true, "default": true},
		"array":   map[string]bool{"type": true, "title": true, "description": true, "default": true, "items": true, "minItems": true, "maxItems": true, "uniqueItems": true},
	}

	rootKeywords = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true, "title": true, "description": true}

	itemsKeywords = map[string]bool{"type": true, "enum": true, "enumNames": true, "anyOf": true, "title": true, "description": true}
)

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
			// Checking each of them would only cost time: the form is refused.
			p.add(base+"/properties", "the schema has %d properties; at most %d are allowed", len(props.obj), MaxProperties)
			return nil
		}
		form.Fields = make([]Field, 0, len(props.obj))
		for i := range props.obj {
			m := &props.obj[i]
			if f, ok := p.field(m.key, &m.val, base+"/properties/"+escapePointer(m.key)); ok {
				form.Fields = append(form.Fields, f)
			}
		}
	}
	// Each option costs the bridge a few hundred bytes while the request
	// waits (parsed, in the widget's reading, in the frame): 44 selects of
	// 1000 short options fit in the schema's bytes and held 3.6 MB each.
	if n := optionCount(form.Fields); n > MaxFormOptions {
		p.add(base+"/properties", "the form offers %d choices in all; at most %d are allowed", n, MaxFormOptions)
		return nil
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
	if len(req.arr) > MaxProperties {
		p.add(path, "required lists %d names; a form has at most %d fields", len(req.arr), MaxProperties)
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
	if !p.inOrder(key, path, "the property name") { // shown when it has no title
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
	if blank(f.Label) {
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
	if !p.inOrder(t.s, path+"/"+key, key) {
		return ""
	}
	return t.s
}

// optionCount is the number of options of all fields. A function, not
// a method of Form: the widget's wasm lists every method of a type it
// decodes, by name, even one it never calls.
func optionCount(fields []Field) int {
	n := 0
	for i := range fields {
		n += len(fields[i].Options)
	}
	return n
}

// blank reports whether s would show as nothing: spaces and invisible
// characters (a title of zero-width spaces) only.
func blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || hiddenRune(r) }) == ""
}

// inOrder refuses text a person would read in another order than it is
// written (see DirectionOverride), naming it what in the problem.
func (p *schemaParser) inOrder(s, path, what string) bool {
	if i := strings.IndexFunc(s, DirectionOverride); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		p.add(path, "%s contains the invisible direction control U+%04X, which shows text in another order than it is written; a person would read something the server did not send", what, r)
		return false
	}
	return true
}

// DirectionOverride reports the Unicode embedding and override controls
// (U+202A to U+202E): "Pay\u202Eroll" shows as "Payllor", "RU-0042" as
// "2400-UR". Text shown to a person must not hold them. The isolates
// (U+2066 to U+2069), which localization tools put around inserted
// words, and the direction marks only order runs as the text's own
// letters would, and are allowed.
func DirectionOverride(r rune) bool { return r >= 0x202a && r <= 0x202e }
