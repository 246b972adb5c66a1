package elicit

import (
	"strconv"
	"strings"
	"time"
)

// CollectOptions tune Collect. The zero value reads datetime-local values as UTC.
type CollectOptions struct {
	// UTCOffset gives the person's UTC offset at a local date and time
	// (from a datetime-local control, which carries none). local holds
	// the wall-clock reading in time.UTC; in a browser the answer is
	// -Date.getTimezoneOffset() of that date and time, so a summer date
	// gets the summer offset.
	UTCOffset func(local time.Time) time.Duration
	// Skipped reports a local date and time that the person's clock never
	// shows: the hour skipped when summer time starts. Such a time has no
	// offset to send it with; nil means none is skipped.
	Skipped func(local time.Time) bool
	// PointGroupsThousands reports whether the person's locale writes
	// thousands with a point ("1.250" is 1250 in Germany and Brazil): a
	// whole number grouped so ("1.250", "12.500.000") is then refused
	// with words on how to write it, not read as decimals. It is asked
	// only about a number typed with a point or a comma; nil means no.
	PointGroupsThousands func() bool
}

// Collect turns the raw inputs of a form, as a browser gives them, into
// the typed content of an accept, or the per-field errors to show. Each
// answer gets its exact type: integer and number a float64 (an integer
// has no fraction), boolean a bool, select its option's value (never the
// title), multi select a []string in option order. An optional field
// left empty is omitted, never sent as "", 0 or false. Keys of in that
// are not fields are ignored: they are not sent. When there are errors
// the content is nil.
func (f *Form) Collect(in Inputs, opts *CollectOptions) (map[string]any, []FieldError) {
	content := map[string]any{}
	var errs []FieldError
	if f == nil {
		return content, nil
	}
	for i := range f.Fields {
		fd := &f.Fields[i]
		v, fe := fd.collect(in[fd.Key], opts)
		switch {
		case fe != nil:
			errs = append(errs, *fe)
		case v != nil:
			content[fd.Key] = v
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return content, nil
}

// collect reads one field's raw values. (nil, nil) means left empty.
func (f *Field) collect(raw []string, opts *CollectOptions) (any, *FieldError) {
	if f.Kind == KindMultiSelect {
		return f.collectMulti(raw)
	}
	s := ""
	if len(raw) > 0 {
		s = raw[0]
	}
	// A person's stray spaces around a number, an address or a date are
	// not part of the answer; free text is sent as typed, and a choice's
	// value as the server wrote it (" a" is an option of its own).
	if f.Kind != KindSelect && (f.Kind != KindString || f.Format != FormatNone) {
		s = strings.TrimSpace(s)
	}
	if s == "" {
		if f.Required {
			return nil, f.fail(CodeRequired)
		}
		return nil, nil
	}
	switch f.Kind {
	case KindNumber, KindInteger:
		typed := westernDigits(s)
		pointLocale := func() bool {
			return opts != nil && opts.PointGroupsThousands != nil && opts.PointGroupsThousands()
		}
		commaDecimal := strings.ContainsAny(typed, ".,") && pointLocale()
		s = barePoint(decimalPoint(typed, commaDecimal))
		pointGroups := commaDecimal
		if d, ok := f.typedDefault().(float64); pointGroups && ok && formatNumber(d) == s {
			// The server's own default, untouched, is sent as it wrote
			// it, even where "1.125" would be read as thousands.
			pointGroups = false
		}
		if !isJSONNumber(s) || pointGroups && groupedByPoint(typed) {
			fe := f.fail(CodeNotANumber)
			if f.Kind == KindInteger {
				fe = f.fail(CodeNotInteger)
			}
			if strings.ContainsFunc(s, notNumberRune) || pointGroups && strings.Contains(s, ".") {
				// "1,250.00", "€1250", "1 250": a number as people write
				// it, which "Enter a number" would not explain.
				fe.Message = writtenNumberMessage(f.Kind, pointLocale())
			}
			return nil, fe
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil { // out of float64's range
			if strings.HasPrefix(s, "-") {
				return nil, f.fail(CodeTooSmall)
			}
			return nil, f.fail(CodeTooLarge)
		}
		if x == 0 {
			x = 0 // "-0" is sent as 0
		}
		if fe := f.checkNumber(x); fe != nil {
			return nil, fe
		}
		return x, nil
	case KindBoolean:
		switch s {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, f.fail(CodeNotAnOption)
	case KindString:
		if f.Format == FormatDateTime && !validDateTime(s) {
			local, err := parseLocal(s)
			if err != nil {
				return nil, f.fail(CodeFormat)
			}
			if opts != nil && opts.Skipped != nil && opts.Skipped(local) {
				fe := f.fail(CodeFormat)
				fe.Message = "This time does not exist where you are: the clocks go forward then. Choose another time"
				return nil, fe
			}
			var offset time.Duration
			if opts != nil && opts.UTCOffset != nil {
				offset = opts.UTCOffset(local)
			}
			if s, err = withOffset(local, offset); err != nil {
				return nil, f.fail(CodeFormat)
			}
		}
		if fe := f.checkString(s); fe != nil {
			return nil, fe
		}
		return s, nil
	}
	// KindSelect: the value, never the title.
	if fe := f.checkString(s); fe != nil {
		return nil, fe
	}
	return s, nil
}

// collectMulti reads the chosen values of a multi select.
func (f *Field) collectMulti(raw []string) (any, *FieldError) {
	var vals []string
	for _, v := range raw {
		if v != "" {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		if f.Required {
			return nil, f.fail(CodeRequired)
		}
		return nil, nil
	}
	if fe := f.checkMulti(vals); fe != nil {
		return nil, fe
	}
	return f.inOptionOrder(vals), nil
}

// notNumberRune reports whether r can appear in no JSON number.
// decimalPoint reads a decimal comma as the point: "1,5" is 1.5. A
// phone's decimal pad in much of Europe has a comma and no point, so a
// person there cannot type "1.5" at all. Only the one comma, with no
// point. Where the locale groups thousands with a point (commaDecimal)
// the comma is always its decimal mark; elsewhere three digits after
// one to three others could be thousands ("1,250" is 1250 in English
// and 1.25 in German), and are left for the person to write plainly,
// unless only a zero, or nothing, stands before the comma.
func decimalPoint(s string, commaDecimal bool) string {
	whole, frac, ok := strings.Cut(s, ",")
	if !ok || strings.ContainsAny(frac, ",") || strings.Contains(s, ".") {
		return s
	}
	head := strings.TrimLeft(whole, "+-")
	if !commaDecimal && len(frac) == 3 && head != "" && head != "0" && len(head) <= 3 {
		return s
	}
	return whole + "." + frac
}

// barePoint writes "+1" as 1, ".5" as 0.5 and "-.5" as -0.5: each has
// one reading, which JSON spells otherwise.
func barePoint(s string) string {
	if len(s) > 1 && s[0] == '+' && (s[1] == '.' || s[1] >= '0' && s[1] <= '9') {
		s = s[1:]
	}
	if strings.HasPrefix(s, ".") {
		return "0" + s
	}
	if strings.HasPrefix(s, "-.") {
		return "-0" + s[1:]
	}
	return s
}

// writtenNumberMessage tells a person who typed a number as people
// write them how to write it here, in the separators of their locale.
func writtenNumberMessage(kind Kind, pointGroups bool) string {
	switch {
	case kind == KindInteger && pointGroups:
		return "Use digits only, without points, spaces or other signs"
	case kind == KindInteger:
		return "Use digits only, without commas, spaces or other signs"
	case pointGroups:
		return "Use digits only, and a comma for decimals (like 1250,5), without points, spaces or other signs"
	}
	return "Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs"
}

// westernDigits writes the digits of other scripts as the digits 0-9:
// a Japanese IME's full-width "１２．５", an Arabic keyboard's "١٢٫٥", a
// Persian one's "۱۲۵۰", Devanagari "१२५०". Each has one reading.
func westernDigits(s string) string {
	return strings.Map(func(r rune) rune {
		for _, zero := range [...]rune{'０', '٠', '۰', '०'} {
			if r >= zero && r <= zero+9 {
				return r - zero + '0'
			}
		}
		switch r {
		case '．', '٫':
			return '.'
		case '，':
			return ','
		case '－', '−':
			return '-'
		case '＋':
			return '+'
		}
		return r
	}, s)
}

// groupedByPoint reports whether s reads as a whole number with its
// thousands grouped by points ("1.250", "12.500.000") where the point
// groups thousands: one to three digits, then groups of three.
func groupedByPoint(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	head, rest, ok := strings.Cut(s, ".")
	if !ok || len(head) == 0 || len(head) > 3 || head[0] == '0' {
		return false
	}
	for _, g := range strings.Split(rest, ".") {
		if len(g) != 3 || strings.Trim(g, "0123456789") != "" {
			return false
		}
	}
	return strings.Trim(head, "0123456789") == ""
}

func notNumberRune(r rune) bool {
	return (r < '0' || r > '9') && !strings.ContainsRune(".+-eE", r)
}
