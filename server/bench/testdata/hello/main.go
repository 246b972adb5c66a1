// Command hello is the floor of the widget's size and start-up figures: a
// bare go-app v9 hello world with only the browser's main, as go-app's
// documentation writes it. The benchmark builds it with the widget's
// flags in the same run, serves it the way the widget is served, and
// waits for the element below to be mounted.
package main

import "github.com/maxence-charriere/go-app/v9/pkg/app"

type hello struct{ app.Compo }

func (h *hello) Render() app.UI {
	return app.H1().DataSet("hello", "mounted").Text("Hello World!")
}

func main() {
	app.Route("/", &hello{})
	app.RunWhenOnBrowser()
}
