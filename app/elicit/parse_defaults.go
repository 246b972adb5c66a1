package elicit

import (
	"math"
	"strconv"
)

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
