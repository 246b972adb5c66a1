// Command hello-client is the hello world floor plus the widget's
// connection (app/client on coder/websocket's browser build, app/wire),
// so the benchmark can say what it costs in compressed bytes. The calls
// sit behind a condition the linker cannot decide; the page never runs
// them.
package main

import (
	"context"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"github.com/formbridge/formbridge/app/client"
	"github.com/formbridge/formbridge/app/wire"
)

type hello struct{ app.Compo }

func (h *hello) Render() app.UI {
	return app.H1().DataSet("hello", "mounted").Text("Hello World!")
}

func main() {
	app.Route("/", &hello{})
	if app.Getenv("FORMBRIDGE_BENCH_NEVER") == "1" {
		useClient()
	}
	app.RunWhenOnBrowser()
}

func useClient() {
	c := client.New(client.Options{
		URL:     client.BridgeURL(app.Getenv("U"), ""),
		OnEvent: func(e client.Event) { println(e.Request, e.Hello, e.Settled, e.Complete, e.Fatal) },
	})
	go c.Run(context.Background())
	println(c.Respond("", wire.ElicitResult{Action: wire.ActionAccept}))
}
