package ui

import (
	"strconv"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// renderRadios shows a short single choice as radio buttons; an optional
// one ends with "No answer" so a choice can be taken back.
func (f *requestCard) renderRadios(i int, fd *elicit.Field) app.UI {
	return f.choiceGroup(i, fd, "", fd.Options)
}

// choiceGroup shows options as radio buttons, or as checkboxes for a
// multi select. Radio buttons of an optional field end with "No answer"
// (value ""), so a choice can be taken back; unticking every checkbox
// is no answer.
func (f *requestCard) choiceGroup(i int, fd *elicit.Field, hint string, options []elicit.Option) app.UI {
	p := f.parts(i, fd, hint)
	d := f.Item.Draft
	multi := fd.Kind == elicit.KindMultiSelect
	if !multi && !fd.Required {
		options = append(options[:len(options):len(options)], elicit.Option{Title: "No answer"})
	}
	controls := make([]app.UI, len(options))
	for j, o := range options {
		typ, checked := "radio", d.value(fd.Key) == o.Value
		var h app.EventHandler
		if multi {
			typ, checked, h = "checkbox", d.has(fd.Key, o.Value), f.onChoiceToggle(fd.Key, o.Value)
		} else {
			h = f.onOptionPick(fd.Key, o.Value)
		}
		controls[j] = option(p.ids.option(j), typ, p.ids.control, checked, p.problem != "", h, []any{f.Item.Seq, i, j}, o.Title)
	}
	return f.wrapGroup(i, p, controls)
}

// renderDropdown shows a long single choice as a <select>. Option values
// in the page are indexes: the real values are server text, and go-app
// trims attribute values, which would change a value like " a".
func (f *requestCard) renderDropdown(i int, fd *elicit.Field) app.UI {
	p := f.parts(i, fd, "")
	val := f.Item.Draft.value(fd.Key)
	empty := "No answer"
	if fd.Required {
		empty = "Choose one…"
	}
	opts := make([]app.UI, 0, len(fd.Options)+1)
	opts = append(opts, textElem("option", "", empty).Attr("value", "").Attr("selected", val == ""))
	for j, o := range fd.Options {
		opts = append(opts, textElem("option", "", o.Title).
			Attr("value", strconv.Itoa(j)).
			Dir("auto").
			Attr("selected", val == o.Value))
	}
	sel := elem("select", "fb-input", opts...).
		ID(p.ids.control).
		Aria("required", fd.Required).
		Aria("invalid", p.problem != "").
		OnChange(f.onOptionSelect(fd), f.Item.Seq, i)
	if d := p.describedBy(); d != "" {
		sel.Aria("describedby", d)
	}
	return f.wrapOne(i, p, sel)
}

// onOptionSelect handles a choice in a drop-down list.
func (f *requestCard) onOptionSelect(fd *elicit.Field) app.EventHandler {
	key, options := fd.Key, fd.Options
	return func(ctx app.Context, e app.Event) {
		j, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
		if err != nil || j < 0 || j >= len(options) {
			f.Item.Draft.set(key)
		} else {
			f.Item.Draft.set(key, options[j].Value)
		}
		f.edited(ctx)
	}
}
