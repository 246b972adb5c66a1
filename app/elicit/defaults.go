package elicit

import "slices"

// Defaults gives the content an untouched form sends on accept (SEP-1034):
// every field with a default, typed as the answer would be (default:false
// included). An empty default ("" or []) means the field starts empty, so
// it is left out, as an empty optional answer is.
func (f *Form) Defaults() map[string]any {
	out := map[string]any{}
	if f == nil {
		return out
	}
	for i := range f.Fields {
		fd := &f.Fields[i]
		switch d := fd.typedDefault().(type) {
		case string:
			if d != "" {
				out[fd.Key] = d
			}
		case float64:
			out[fd.Key] = d
		case bool:
			out[fd.Key] = d
		case []string:
			if len(d) > 0 {
				out[fd.Key] = slices.Clone(d)
			}
		}
	}
	return out
}

// Initial gives the starting Inputs of a form from its defaults, as a
// browser's controls would hold them, so that Collect(Initial()) gives
// Defaults(). A date-time default is given as written (RFC 3339 with
// its offset); Collect takes that form as well as a datetime-local value.
// A widget that shows a datetime-local control converts it for display
// with DateTimeLocalValue, or the control would show it empty.
func (f *Form) Initial() Inputs {
	in := Inputs{}
	if f == nil {
		return in
	}
	for i := range f.Fields {
		fd := &f.Fields[i]
		switch d := fd.typedDefault().(type) {
		case string:
			if d != "" {
				in[fd.Key] = []string{d}
			}
		case float64:
			in[fd.Key] = []string{formatNumber(d)}
		case bool:
			if d {
				in[fd.Key] = []string{"true"}
			} else {
				in[fd.Key] = []string{"false"}
			}
		case []string:
			if len(d) > 0 {
				in[fd.Key] = slices.Clone(d)
			}
		}
	}
	return in
}

// typedDefault is the field's default with a multi select's as []string,
// also for a Field built with a []any default (UnmarshalJSON converts it).
func (f *Field) typedDefault() any {
	if f.Kind == KindMultiSelect {
		if vals, ok := toStrings(f.Default); ok {
			return vals
		}
		return nil
	}
	return f.Default
}
