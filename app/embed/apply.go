package embed

import (
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// themer applies themes to the document's root element, as inline
// custom properties: they win over app.css's :root rules, and removing
// them gives app.css back untouched.
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
	style := app.Window().Get("document").Get("documentElement").Get("style")
	for _, name := range th.applied {
		style.Call("removeProperty", name)
	}
	th.applied = th.applied[:0]
	set := func(name, value string) {
		style.Call("setProperty", name, value)
		th.applied = append(th.applied, name)
	}
	if mode != ModeAuto {
		// app.css picks its palette with prefers-color-scheme; a forced
		// mode sets that palette's values inline instead, read from the
		// stylesheet itself so the two cannot drift apart.
		light, dark := palettes()
		palette := light
		if mode == ModeDark {
			for k, v := range dark {
				palette[k] = v
			}
		}
		for _, name := range sortedKeys(palette) {
			set(name, palette[name])
		}
		set("color-scheme", mode) // native controls and scrollbars follow
	}
	for _, name := range sortedKeys(props) {
		set(name, props[name])
	}
	return problems
}

// palettes reads the widget's custom properties from app.css: those of
// its top-level :root rule (light) and of the :root rule inside its
// prefers-color-scheme: dark media rule.
func palettes() (light, dark map[string]string) {
	light, dark = map[string]string{}, map[string]string{}
	sheets := app.Window().Get("document").Get("styleSheets")
	for i := 0; i < sheets.Length(); i++ {
		rules, ok := cssRules(sheets.Index(i))
		if !ok {
			continue
		}
		for j := 0; j < rules.Length(); j++ {
			rule := rules.Index(j)
			switch {
			case rule.Get("selectorText").String() == ":root":
				readProps(rule.Get("style"), light)
			case rule.Get("media").Truthy() && strings.Contains(rule.Get("media").Get("mediaText").String(), "dark"):
				inner := rule.Get("cssRules")
				for k := 0; k < inner.Length(); k++ {
					if r := inner.Index(k); r.Get("selectorText").String() == ":root" {
						readProps(r.Get("style"), dark)
					}
				}
			}
		}
	}
	return light, dark
}

// cssRules reads a sheet's rules. A sheet from another origin throws on
// access; the widget's are all its own, but a throw must not end the
// program.
func cssRules(sheet app.Value) (rules app.Value, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	rules = sheet.Get("cssRules")
	return rules, rules.Truthy()
}

// readProps copies a declaration block's --fb-* custom properties.
func readProps(style app.Value, into map[string]string) {
	for i := 0; i < style.Length(); i++ {
		name := style.Call("item", i).String()
		if strings.HasPrefix(name, "--fb-") {
			into[name] = strings.TrimSpace(style.Call("getPropertyValue", name).String())
		}
	}
}
