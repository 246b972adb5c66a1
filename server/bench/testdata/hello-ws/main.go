// Command hello-ws is the floor of the open-page figures: a go-app v9
// page with the widget's transport (coder/websocket's browser build) and
// nothing else. Each text frame from the server names a request; the page
// shows a form with that id and a Send button (the widget's DOM hooks),
// and a click on Send writes the id back.
package main

import (
	"context"

	"github.com/coder/websocket"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// path is where the benchmark serves this page's WebSocket.
const path = "/floor-ws"

type page struct {
	app.Compo
	id   string
	conn *websocket.Conn
}

func (p *page) OnMount(ctx app.Context) {
	u := app.Window().URL()
	url := "ws://" + u.Host + path
	ctx.Async(func() {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			return
		}
		ctx.Dispatch(func(ctx app.Context) { p.conn = c })
		for {
			_, data, err := c.Read(context.Background())
			if err != nil {
				return
			}
			id := string(data)
			ctx.Dispatch(func(ctx app.Context) { p.id = id })
		}
	})
}

func (p *page) onSend(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if p.conn != nil {
		p.conn.Write(context.Background(), websocket.MessageText, []byte(p.id))
	}
}

func (p *page) Render() app.UI {
	online := "connecting"
	if p.conn != nil {
		online = "online"
	}
	return app.Div().DataSet("connection", online).Body(
		app.If(p.id != "",
			app.Form().DataSet("elicitation-id", p.id).Body(
				app.Button().Type("button").DataSet("action", "accept").Text("Send").OnClick(p.onSend),
			),
		),
	)
}

func main() {
	app.Route("/", &page{})
	app.RunWhenOnBrowser()
}
