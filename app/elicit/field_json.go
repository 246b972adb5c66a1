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

// UnmarshalJSON reads a Field as json.Marshal wrote it. It fails for a
// field without a key, of a kind it does not know, whose default is not
// of its kind, a choice without options, or a pattern that does not
// compile; the pattern is compiled once here, as Parse does.
func (f *Field) UnmarshalJSON(b []byte) error {
	type plain Field // the same fields, without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	fd := Field(p)
	if fd.Key == "" {
		return fmt.Errorf("elicit: a field has no key")
	}
	d, ok := decodedDefault(fd.Kind, fd.Default)
	if !ok {
		return fmt.Errorf("elicit: field %q: a default of %T does not fit kind %q", fd.Key, fd.Default, fd.Kind)
	}
	fd.Default = d
	if (fd.Kind == KindSelect || fd.Kind == KindMultiSelect) && len(fd.Options) == 0 {
		return fmt.Errorf("elicit: field %q offers no choices", fd.Key)
	}
	if fd.Pattern != "" {
		re, err := regexp.Compile(fd.Pattern)
		if err != nil {
			return fmt.Errorf("elicit: field %q: %v", fd.Key, err)
		}
		fd.pattern = re
	}
	*f = fd
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
