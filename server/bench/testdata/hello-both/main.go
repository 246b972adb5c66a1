// Command hello-both is the hello world floor plus both the model
// (app/elicit) and the connection (app/client), as hello-elicit and
// hello-client have them; the widget minus this is what its interface
// (app/ui, app/embed, and the go-app elements they use) costs.
package main

import (
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

func useClient() {
	c := client.New(client.Options{
		URL:     client.BridgeURL(app.Getenv("U"), ""),
		OnEvent: func(e client.Event) { println(e.Request, e.Hello, e.Settled, e.Complete, e.Fatal) },
	})
	go c.Run(context.Background())
	println(c.Respond("", wire.ElicitResult{Action: wire.ActionAccept}))
}
