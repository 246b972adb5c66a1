package elicit

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// A Form travels as JSON: the bridge parses the schema and sends the
// Form it made, so the widget need not link the parser. encoding/json
// hands a default back as float64, bool, string or []any; UnmarshalJSON
// restores the typed default the rest of this package expects, and
// refuses a field the widget could not show or check honestly.

// UnmarshalJSON reads a Field as json.Marshal wrote it, then checks it
// with Prepare.
func (f *Field) UnmarshalJSON(b []byte) error {
	type plain Field // the same fields, without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	fd := Field(p)
	if err := fd.Prepare(); err != nil {
		return err
	}
	*f = fd
	return nil
}

// Prepare finishes a Field read from JSON: it restores the typed default
// from the float64, bool, string or []any it was decoded as, and compiles
// the pattern once, as Parse does. It fails for a field without a key,
// of a kind it does not know, whose default is not of its kind, a choice
// without options, or a pattern that does not compile.
func (f *Field) Prepare() error {
	if f.Key == "" {
		return fmt.Errorf("elicit: a field has no key")
	}
	d, ok := decodedDefault(f.Kind, f.Default)
	if !ok {
		return fmt.Errorf("elicit: field %q: a default of %T does not fit kind %q", f.Key, f.Default, f.Kind)
	}
	f.Default = d
	if (f.Kind == KindSelect || f.Kind == KindMultiSelect) && len(f.Options) == 0 {
		return fmt.Errorf("elicit: field %q offers no choices", f.Key)
	}
	if f.Pattern != "" {
		re, err := regexp.Compile(f.Pattern)
		if err != nil {
			return fmt.Errorf("elicit: field %q: %v", f.Key, err)
		}
		f.pattern = re
	}
	return nil
}

// decodedDefault turns a default as encoding/json decodes it into the type
// a Field of kind holds: string (string, select), float64 (number,
// integer), bool (boolean), []string (multi select). nil stays nil (no
// default). It reports false for a value that does not fit the kind, and
// for a kind it does not know.
func decodedDefault(kind Kind, v any) (any, bool) {
	switch kind {
	case KindString, KindSelect, KindNumber, KindInteger, KindBoolean, KindMultiSelect:
	default:
		return nil, false
	}
	if v == nil {
		return nil, true
	}
	switch kind {
	case KindString, KindSelect:
		s, ok := v.(string)
		return s, ok
	case KindNumber, KindInteger:
		x, ok := toFloat(v)
		if !ok {
			return nil, false
		}
		if x == 0 {
			x = 0 // -0 as 0, as Parse stores it
		}
		return x, true
	case KindBoolean:
		b, ok := v.(bool)
		return b, ok
	default: // KindMultiSelect
		vals, ok := toStrings(v)
		if !ok {
			return nil, false
		}
		return append([]string{}, vals...), true
	}
}
