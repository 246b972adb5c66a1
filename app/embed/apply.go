package embed

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// modeAttr is the attribute web/app.css reads on the root element to
// force its light or dark palette over the person's system setting.
const modeAttr = "data-fb-mode"

// themer applies themes to the document's root element: the mode as
// data-fb-mode, colours and the rest as inline custom properties, which
// win over app.css's :root rules; removing them gives app.css back.
type themer struct {
	applied []string // property names set by the last theme
}

// apply replaces the previous theme with t and returns the problems with
// t's values.
func (th *themer) apply(t *Theme) []string {
	props, problems := t.properties()
	mode, modeProblems := t.mode()
	problems = append(problems, modeProblems...)
	if !app.IsClient {
		return problems
	}
	root := app.Window().Get("document").Get("documentElement")
	if mode == ModeAuto {
		root.Call("removeAttribute", modeAttr)
	} else {
		root.Call("setAttribute", modeAttr, mode)
	}
	style := root.Get("style")
	for _, name := range th.applied {
		style.Call("removeProperty", name)
	}
	th.applied = th.applied[:0]
	for _, name := range sortedKeys(props) {
		style.Call("setProperty", name, props[name])
		th.applied = append(th.applied, name)
	}
	return problems
}
