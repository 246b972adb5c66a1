package client_test

import (
	"fmt"

	"github.com/formbridge/formbridge/app/client"
	"github.com/formbridge/formbridge/app/wire"
)

// A widget runs one client for the life of its page. Events arrive in
// order on the client's goroutine; a go-app component hands each to its
// own goroutine with ctx.Dispatch.
func Example() {
	var c *client.Client
	c = client.New(client.Options{
		URL:        client.BridgeURL("https://approve.example.com/#token=…", ""),
		Token:      "the channel's token, read from the URL fragment",
		ClientInfo: wire.Implementation{Name: "my-widget", Version: "1.0.0"},
		OnEvent: func(ev client.Event) {
			switch {
			case ev.State != "":
				fmt.Println("connection:", ev.State)
			case ev.Request != nil:
				// Show the form; when the person answers:
				c.Respond(ev.Request.ID, wire.ElicitResult{Action: wire.ActionDecline})
			case ev.Fatal != nil:
				fmt.Println("giving up:", ev.Fatal)
			}
		},
	})
	// In the widget: go c.Run(ctx), which connects, and reconnects until
	// the component's ctx ends.
	fmt.Println(client.BridgeURL("https://approve.example.com/page#token=x", ""))
	// Output: wss://approve.example.com/ws
}
