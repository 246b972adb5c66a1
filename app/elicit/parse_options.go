package elicit

import (
	"strconv"
	"unicode/utf8"
)

// This file reads the choices of a select or multi select, in the three
// ways the spec allows: enum (with the legacy enumNames as titles),
// oneOf and anyOf lists of {const, title}.

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
	case !p.inOrder(v.s, path, "a choice's value"): // shown when it has no title
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
	case !p.inOrder(v.s, path, "a choice's title"):
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
