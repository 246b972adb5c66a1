// Package ui is the widget: go-app components that show each pending
// elicitation to a person as a form (or, in URL mode, a link to open)
// and send the answer back through app/client.
//
// Everything a server wrote (messages, titles, descriptions, option
// titles, URLs) is rendered as text nodes, isolated with dir="auto" or
// <bdi>, and never as markup or a link.
//
// DOM hooks, for hosts and browser tests: those of ARCHITECTURE.md
// section 6, plus
//   - [data-outcome] also takes "waiting" (a URL-mode link was opened and
//     accepted; the other tab is not finished), "completed" (its
//     notifications/elicitation/complete arrived) and "gone" (a request
//     held across a reconnect that the bridge no longer has, or one whose
//     answer the bridge refused with -32003 because it no longer holds it);
//   - button[data-action="done"|"dismiss"] close a notice locally;
//   - button[data-request-id] in nav.fb-queue switches the open request;
//   - li[data-warning="<code>"] lists app/elicit's URL warnings.
//
// (The demo page's button[data-demo-tool="<name>"] is web/demo.js's,
// not the widget's.)
//
// Field controls: a string is a text area when it is free text (no
// format, no pattern) with no maxLength or one above 200, else an input
// typed by its format; a required boolean is a checkbox (unticked sends
// false), an optional one Yes / No / No answer radios; a single select of
// up to 5 options is radios (plus "No answer" when optional), longer a
// <select>; a multi select is checkboxes with its limits stated.
package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// Register registers the widget's routes. wasm/main.go calls it before
// app.RunWhenOnBrowser, and server/site before prerendering.
func Register() {
	app.RouteFunc("/", func() app.Composer { return &widget{} })
	clientInfo.Version = pageVersion()
	predial()
}
