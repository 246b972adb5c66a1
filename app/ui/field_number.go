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
		return noun + ", " + numberText(*fd.Minimum) + " or more"
	case fd.Maximum != nil:
		return noun + ", " + numberText(*fd.Maximum) + " or less"
	}
	if fd.Kind == elicit.KindInteger {
		return noun
	}
	return ""
}

// renderNumber shows a number field. It is a text box, not
// <input type=number>: that one reports text it cannot read ("12e",
// "1,5" in some locales) as "", so an answer the person typed would be
// dropped without a word, and its wheel and arrow keys change a value
// unasked. The text is kept as typed; Form.Collect reads and checks it,
// and says what is wrong. A phone shows its number pad unless the
// number may be negative: the pads of many have no minus key.
func (f *requestCard) renderNumber(i int, fd *elicit.Field) app.UI {
	p := f.parts(i, fd, numberHint(fd))
	in := f.textInput(i, p, "text", "fb-input fb-number", f.Item.initialValue(fd.Key))
	switch {
	case fd.Minimum == nil || *fd.Minimum < 0:
	case fd.Kind == elicit.KindInteger:
		in.Attr("inputmode", "numeric")
	default:
		in.Attr("inputmode", "decimal")
	}
	return f.wrapOne(i, p, in)
}
