package ui

import (
	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// numberHint states a number field's range: "A whole number from 1 to 10".
func numberHint(fd *elicit.Field) string {
	noun := "A number"
	if fd.Kind == elicit.KindInteger {
		noun = "A whole number"
	}
	switch {
	case fd.Minimum != nil && fd.Maximum != nil:
		return noun + " from " + numberText(*fd.Minimum) + " to " + numberText(*fd.Maximum)
	case fd.Minimum != nil:
		return noun + " of " + numberText(*fd.Minimum) + " or more"
	case fd.Maximum != nil:
		return noun + " of " + numberText(*fd.Maximum) + " or less"
	}
	if fd.Kind == elicit.KindInteger {
		return noun
	}
	return ""
}

// renderNumber shows a number field. The raw text is kept as typed;
// Form.Collect reads and checks it.
func (f *requestForm) renderNumber(i int, fd *elicit.Field) app.UI {
	p := f.parts(i, fd, numberHint(fd))
	in := f.textInput(i, p, "number", "fb-input fb-number", f.Item.initialValue(fd.Key))
	if fd.Kind == elicit.KindInteger {
		in.Attr("step", "1").Attr("inputmode", "numeric")
	} else {
		in.Attr("step", "any").Attr("inputmode", "decimal")
	}
	if fd.Minimum != nil {
		in.Attr("min", numberText(*fd.Minimum))
	}
	if fd.Maximum != nil {
		in.Attr("max", numberText(*fd.Maximum))
	}
	return f.wrapOne(i, p, in)
}
