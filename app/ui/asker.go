package ui

import (
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// renderAsker is the head of a request card: who asks, and their
// message. Server text is always a text node; dir="auto" and <bdi> keep
// right-to-left text and bidi control characters from reordering the
// widget's own words around them.
func renderAsker(it *item, titleID, countdown string) app.UI {
	who := []app.UI{app.Bdi().Class("fb-who").Body(app.Text(it.Requester()))}
	if v := strings.TrimSpace(it.RequesterVersion()); v != "" {
		who = append(who, app.Span().Class("fb-version").Body(
			app.Text(" version "),
			app.Bdi().Body(app.Text(v)),
		))
	}
	return app.Header().Class("fb-card-head").Body(
		app.P().Class("fb-asks").Body(app.Text("Request from")),
		app.H2().ID(titleID).Class("fb-title").TabIndex(-1).Body(who...),
		app.If(countdown != "", app.P().Class("fb-countdown").Body(app.Text(countdown))),
		app.If(strings.TrimSpace(it.Params.Message) != "",
			app.P().Class("fb-message").Dir("auto").Body(app.Text(it.Params.Message)),
		),
	)
}

// renderSensitive warns before the fields of a form that seems to ask
// for a secret: the MCP specification forbids that in form mode, so the
// person should hear it from the widget, not from the server.
func renderSensitive(it *item) app.UI {
	var what string
	rows := make([]app.UI, 0, len(it.Sensitive))
	for _, s := range it.Sensitive {
		if what == "" {
			what = s.What
		}
		label := s.Field
		if f := it.Form.Field(s.Field); f != nil {
			label = f.Label
		}
		rows = append(rows, app.Li().Body(
			app.Bdi().Body(app.Text(label)),
			app.If(s.Reason != "", app.Text(": "+s.Reason)),
		))
	}
	if what == "" {
		what = "password"
	}
	return app.Div().Class("fb-warning").Role("note").Body(
		app.P().Body(
			app.Strong().Body(app.Text("Be careful. ")),
			app.Text("This asks for something that looks like "+withArticle(what)+". Legitimate servers never ask for passwords here."),
		),
		app.Ul().Body(rows...),
	)
}

// withArticle writes "a password", "an API key".
func withArticle(noun string) string {
	if noun == "" {
		return "a secret"
	}
	switch noun[0] {
	case 'a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U':
		return "an " + noun
	}
	return "a " + noun
}

// sortedKeys gives a map's keys in a stable order for rendering.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
