package ui

import (
	"strconv"
	"strings"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// maxRadios is the most options shown as radio buttons; longer lists
// become a drop-down, which stays short on a phone.
const maxRadios = 5

// fieldIDs are the element ids of one field. They are built from local
// numbers, never from property keys, which are server text.
type fieldIDs struct {
	control string // the field's (first) control
	help    string // the description
	hint    string // the limits, in words
	err     string // the problem shown
}

func (f *requestCard) ids(i int) fieldIDs {
	c := f.Item.elemID("f" + strconv.Itoa(i))
	return fieldIDs{control: c, help: c + "-help", hint: c + "-hint", err: c + "-err"}
}

// optionID is the id of the j-th control of a group; the first one
// carries the field's control id so focus and labels find it.
func (ids fieldIDs) option(j int) string {
	if j == 0 {
		return ids.control
	}
	return ids.control + "-o" + strconv.Itoa(j)
}

// fieldParts are the pieces every field kind shows around its controls.
type fieldParts struct {
	ids     fieldIDs
	field   *elicit.Field
	hint    string
	problem string
	warning string // the id of the warning that the field asks for a secret, if it does
}

func (f *requestCard) parts(i int, fd *elicit.Field, hint string) fieldParts {
	p := fieldParts{ids: f.ids(i), field: fd, hint: hint, problem: f.Item.Draft.shownError(fd.Key)}
	for _, s := range f.Item.Sensitive {
		if s.Field == fd.Key {
			p.warning = f.Item.elemID("sensitive")
		}
	}
	return p
}

// describedBy lists the ids of the warning, help, hint and problem shown.
// The warning comes first: a screen reader user lands on the field, never
// on the warning above it.
func (p fieldParts) describedBy() string {
	var help, hint, problem string
	if p.field.Description != "" {
		help = p.ids.help
	}
	if p.hint != "" {
		hint = p.ids.hint
	}
	if p.problem != "" {
		problem = p.ids.err
	}
	return strings.Join(strings.Fields(p.warning+" "+help+" "+hint+" "+problem), " ")
}

// labelText is the field's label with the required mark. The mark is a
// word, not only a star or a colour, so everyone gets it.
func (p fieldParts) labelText() []app.UI {
	var mark app.UI
	if p.field.Required {
		mark = text("span", "fb-req", " (required)")
	}
	return []app.UI{text("bdi", "", p.field.Label), mark}
}

// notes are the description and the hint, in that order, in their box.
func (p fieldParts) notes() app.UI {
	var help, hint app.UI
	if p.field.Description != "" {
		help = textElem("p", "fb-help", p.field.Description).ID(p.ids.help).Dir("auto")
	}
	if p.hint != "" {
		hint = textElem("p", "fb-hint", p.hint).ID(p.ids.hint)
	}
	return el("div", "", help, hint)
}

// problemLine is the error next to the field.
func (p fieldParts) problemLine() app.UI {
	if p.problem == "" {
		return nil
	}
	// The warning sign is drawn by CSS, so the text is the message alone.
	return textElem("p", "fb-error", p.problem).ID(p.ids.err)
}

// fieldBox is the element around field i: its data-field hook, its
// class, and the focusout that shows its problems once the person
// leaves it.
func (f *requestCard) fieldBox(tag, class string, i int, p fieldParts, body ...app.UI) app.HTMLElem {
	return elem(tag, class, body...).
		DataSet("field", p.field.Key).
		On("focusout", f.onFieldLeave(p.field.Key), f.Item.Seq, i)
}

// wrapOne wraps a field with one control: label, notes, control, problem.
func (f *requestCard) wrapOne(i int, p fieldParts, control app.UI) app.UI {
	return f.fieldBox("div", fieldClass(p), i, p,
		elem("label", "fb-label", p.labelText()...).Attr("for", p.ids.control),
		p.notes(),
		control,
		p.problemLine(),
	)
}

// wrapGroup wraps a field answered with several controls (radio
// buttons, checkboxes) in a fieldset whose legend is the label.
func (f *requestCard) wrapGroup(i int, p fieldParts, controls []app.UI) app.UI {
	return f.fieldBox("fieldset", fieldClass(p), i, p,
		el("legend", "fb-label", p.labelText()...),
		p.notes(),
		el("div", "fb-options", controls...),
		p.problemLine(),
	).Aria("describedby", p.describedBy())
}

func fieldClass(p fieldParts) string {
	if p.problem != "" {
		return "fb-field fb-invalid"
	}
	return "fb-field"
}

// option is one radio button or checkbox with its visible text.
// The fieldset around the group carries aria-describedby for all of them.
func option(id, typ, name string, checked, invalid bool, h app.EventHandler, scope []any, label string) app.UI {
	in := input(id, typ).
		Attr("name", name).
		Attr("checked", checked).
		OnChange(h, scope...)
	if invalid {
		in.Aria("invalid", true)
	}
	return el("label", "fb-option", in, text("bdi", "", label))
}

// renderField picks the control for a field's kind.
func (f *requestCard) renderField(i int, fd *elicit.Field) app.UI {
	switch fd.Kind {
	case elicit.KindNumber, elicit.KindInteger:
		return f.renderNumber(i, fd)
	case elicit.KindBoolean:
		return f.renderBoolean(i, fd)
	case elicit.KindSelect:
		if len(fd.Options) <= maxRadios {
			return f.renderRadios(i, fd)
		}
		return f.renderDropdown(i, fd)
	case elicit.KindMultiSelect:
		return f.renderChoices(i, fd)
	}
	return f.renderText(i, fd)
}

// numberText writes a limit as a person reads it: "10", "2.5".
func numberText(x float64) string {
	if x == 0 {
		return "0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
