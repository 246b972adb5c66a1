// Command hello-elicit is the hello world floor plus what the widget uses
// of app/elicit, so the benchmark can say what the model costs in
// compressed bytes. The calls sit behind a condition the linker cannot
// decide, so the code stays in; the page never runs it.
package main

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
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
	// As the widget does: the bridge parses and checks each request and
	// sends its reading in _meta, so the widget decodes that, then fills
	// in and checks answers. The parser and URL checks are not linked.
	var m wire.RequestMeta
	if err := json.Unmarshal([]byte(app.Getenv("P")), &m); err != nil || m.Form == nil {
		println(err)
		return
	}
	content, errs := m.Form.Collect(m.Form.Initial(), &elicit.CollectOptions{})
	println(content, errs, m.Form.Field("x"), len(m.Sensitive), m.Link.Lookalike())
}
