package ui

import (
	"slices"
	"strings"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// renderAsker is the head of a request card: who asks, and their
// message; not the requester's version, which means nothing to the
// person answering. Server text is always a text node; dir="auto" and
// <bdi> keep right-to-left text and bidi control characters from
// reordering the widget's own words around them.
func renderAsker(it *item, countdown string) app.UI {
	who := text("bdi", "fb-who", it.Requester())
	var message app.UI
	if strings.TrimSpace(it.Params.Message) != "" {
		message = textElem("p", "fb-message", it.Params.Message).Dir("auto").ID(it.elemID("message"))
	}
	return el("header", "fb-card-head",
		text("p", "fb-asks", "Request from"),
		elem("h2", "fb-title", who).ID(it.elemID("title")).TabIndex(-1),
		textIf("p", "fb-countdown", countdown),
		message,
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
		var reason app.UI
		if s.Reason != "" {
			reason = words(": " + s.Reason)
		}
		rows = append(rows, el("li", "", text("bdi", "", label), reason))
	}
	if what == "" {
		what = "password"
	}
	return elem("div", "fb-warning",
		el("p", "",
			text("strong", "", "Be careful. "),
			// "If it is yours": a server may fill in a field that is not
			// the person's (a supplier's IBAN) for them to check.
			words("This seems to ask for "+elicit.WithArticle(what)+". If it is yours, do not type it here, and press Decline: trustworthy services ask for it only on their own website."),
		),
		el("ul", "", rows...),
	).Role("note").ID(it.elemID("sensitive"))
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
