package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// renderQueue lists every pending request, oldest first, so the person
// sees what is waiting and can switch between them; open is the one
// shown. Plain elements, not a component: go-app compares the few rows
// as cheaply as a component's props, and a component type cost 13.7 KB
// of wasm (go-app's method wrappers, the props' type data, equality).
func (w *widget) renderQueue(open *item) app.UI {
	n := w.queue.len()
	rows := make([]app.UI, n)
	for i, it := range w.queue.items {
		var left app.UI
		if c := countdown(w.now, it.Meta.ExpiresAt); c != "" {
			left = words(" · " + c)
		}
		btn := elem("button", "fb-queue-item",
			el("span", "fb-queue-who", text("bdi", "", it.Requester())),
			serverText("span", "fb-queue-what", it.Summary()),
			el("span", "fb-queue-when", words(ago(w.now, it.Created())), left),
		).
			ID(it.elemID("row")).
			Attr("type", "button").
			DataSet("request-id", it.ID).
			OnClick(w.onPick(it.ID), it.ID)
		if it == open {
			btn.Aria("current", "true")
		}
		rows[i] = el("li", "", btn)
	}
	return elem("nav", "fb-queue",
		text("h2", "fb-queue-title", waitingWords(n)),
		el("ul", "", rows...),
	).Aria("label", "Requests waiting")
}

// onPick opens the request the person clicked.
func (w *widget) onPick(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		w.selectRequest(id)
	}
}

// waitingWords is "1 request waiting", "3 requests waiting".
func waitingWords(n int) string {
	if n == 1 {
		return "1 request waiting"
	}
	return strconv.Itoa(n) + " requests waiting"
}
