package ui

import (
	"strconv"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// choicesHint states how many choices a multi select takes.
func choicesHint(fd *elicit.Field) string {
	lo, hi := 0, -1
	if fd.MinItems != nil {
		lo = *fd.MinItems
	}
	if fd.MaxItems != nil {
		hi = *fd.MaxItems
	}
	switch {
	case hi >= 0 && lo == hi:
		return "Choose exactly " + strconv.Itoa(hi)
	case hi >= 0 && lo > 0:
		return "Choose between " + strconv.Itoa(lo) + " and " + strconv.Itoa(hi)
	case hi >= 0:
		return "Choose up to " + strconv.Itoa(hi)
	case lo > 0:
		return "Choose at least " + strconv.Itoa(lo)
	}
	return "Choose any that apply"
}

// renderChoices shows a multi select as checkboxes; unticking them all
// is "no answer".
func (f *requestCard) renderChoices(i int, fd *elicit.Field) app.UI {
	return f.choiceGroup(i, fd, choicesHint(fd), fd.Options)
}
