// Package ui is the widget: go-app components that show each pending
// elicitation to a person as a form (or, in URL mode, a link to open)
// and send the answer back through app/client.
//
// Everything a server wrote (messages, titles, descriptions, option
// titles, URLs) is rendered as text nodes, isolated with dir="auto" or
// <bdi>, and never as markup or a link.
package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// Register registers the widget's routes. wasm/main.go calls it before
// app.RunWhenOnBrowser, and server/site before prerendering.
func Register() {
	app.RouteFunc("/", func() app.Composer { return &widget{} })
}
