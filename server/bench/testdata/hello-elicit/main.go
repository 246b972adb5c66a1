// Command hello-elicit is the hello world floor plus what the widget uses
// of app/elicit, so the benchmark can say what the model costs in
// compressed bytes. The calls sit behind a condition the linker cannot
// decide, so the code stays in; the page never runs it.
package main

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"github.com/formbridge/formbridge/app/elicit"
)

type hello struct{ app.Compo }

func (h *hello) Render() app.UI {
	return app.H1().DataSet("hello", "mounted").Text("Hello World!")
}

func main() {
	app.Route("/", &hello{})
	if app.Getenv("FORMBRIDGE_BENCH_NEVER") == "1" {
		useElicit()
	}
	app.RunWhenOnBrowser()
}

func useElicit() {
	r, err := elicit.ParseRequest([]byte(app.Getenv("P")))
	if err != nil {
		println(err.Error())
		return
	}
	content, errs := r.Form.Collect(r.Form.Initial(), &elicit.CollectOptions{})
	println(content, errs, r.Form.Validate(content), r.Form.Sensitive(), r.Form.Defaults())
	u, err := elicit.CheckURL(app.Getenv("U"))
	println(u, err)
}
