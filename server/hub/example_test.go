package hub_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// A caller asks on channel "default"; a widget attached there takes the
// elicitation/create frame and answers. The gateway does the widget's
// part over a WebSocket.
func Example() {
	h := hub.New(&hub.Options{DefaultToken: "a-long-random-secret"})
	defer h.Close()

	wake := make(chan struct{}, 1)
	widget, err := h.Attach(hub.DefaultChannel, &hub.AttachOptions{
		Notify: func() { // called with hub locks held: only signal
			select {
			case wake <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		panic(err)
	}
	go func() {
		<-wake
		frames, _ := widget.Take(nil)
		var m wire.Message
		json.Unmarshal(frames[0], &m)
		id, _ := wire.StringID(m.ID)
		widget.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"approve": true}})
	}()

	res, err := h.Elicit(context.Background(), hub.DefaultChannel,
		wire.Implementation{Name: "deploy-bot", Title: "Deploy Bot"},
		json.RawMessage(`{"message":"Deploy to production?","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean"}},"required":["approve"]}}`),
		nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Action, res.Content["approve"])
	// Output: accept true
}
