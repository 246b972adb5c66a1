// Command hello-both is the hello world floor plus both the model
// (app/elicit) and the connection (app/client), as hello-elicit and
// hello-client have them; the widget minus this is what its interface
// (app/ui, app/embed, and the go-app elements they use) costs.
package main

import (
	"encoding/json"

	"context"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"github.com/formbridge/formbridge/app/client"
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
		useClient()
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

func useClient() {
	c := client.New(client.Options{
		URL:     client.BridgeURL(app.Getenv("U"), ""),
		OnEvent: func(e client.Event) { println(e.Request, e.Hello, e.Settled, e.Complete, e.Fatal) },
	})
	go c.Run(context.Background())
	println(c.Respond("", wire.ElicitResult{Action: wire.ActionAccept}))
}
