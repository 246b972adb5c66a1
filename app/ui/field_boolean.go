package ui

import (
	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// renderBoolean shows a yes/no question. A required one is a checkbox
// (unticked means no). An optional one is Yes / No / No answer, so the
// person can always take an answer back, a default included: a
// checkbox cannot say "I did not answer".
func (f *requestCard) renderBoolean(i int, fd *elicit.Field) app.UI {
	p := f.parts(i, fd, "")
	val := f.Item.Draft.value(fd.Key)
	if fd.Required {
		in := input(p.ids.control, "checkbox").
			Attr("checked", val == "true").
			Aria("invalid", p.problem != "").
			OnChange(f.onBoxCheck(fd.Key), f.Item.Seq, i)
		if d := p.describedBy(); d != "" {
			in.Aria("describedby", d)
		}
		return f.fieldBox("div", fieldClass(p)+" fb-check", i, p,
			el("div", "fb-check-row",
				in,
				// No "(required)": a checkbox always answers (unticked
				// is no), and the mark would read as "you must tick".
				elem("label", "fb-label", text("bdi", "", fd.Label)).Attr("for", p.ids.control),
			),
			p.notes(),
			p.problemLine(),
		)
	}
	return f.choiceGroup(i, fd, "", yesNo)
}

// yesNo are the answers of an optional yes/no question, before "No
// answer".
var yesNo = []elicit.Option{{Value: "true", Title: "Yes"}, {Value: "false", Title: "No"}}

// requiredBooleansAnswered gives a required yes/no question without a
// default the answer its unticked checkbox shows: no.
func requiredBooleansAnswered(form *elicit.Form, in elicit.Inputs) elicit.Inputs {
	for _, fd := range form.Fields {
		if fd.Kind == elicit.KindBoolean && fd.Required {
			if v := in[fd.Key]; len(v) == 0 || v[0] == "" {
				if in == nil {
					in = elicit.Inputs{}
				}
				in[fd.Key] = []string{"false"}
			}
		}
	}
	return in
}
