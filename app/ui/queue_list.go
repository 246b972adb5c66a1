package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// queueEntry is one line of the queue list: plain data, so the list
// re-renders only when what it shows changes.
type queueEntry struct {
	ID        string
	Requester string
	Summary   string
	Ago       string
	Countdown string
	Selected  bool
}

// selecter switches the open request.
type selecter interface {
	selectRequest(id string)
}

// queueList lists every pending request, oldest first, so the person
// sees what is waiting and can switch between them.
type queueList struct {
	app.Compo

	Entries []queueEntry
	Select  selecter
}

// onPick opens the request the person clicked.
func (q *queueList) onPick(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		q.Select.selectRequest(id)
	}
}

// waitingWords is "1 request waiting", "3 requests waiting".
func waitingWords(n int) string {
	if n == 1 {
		return "1 request waiting"
	}
	return strconv.Itoa(n) + " requests waiting"
}

func (q *queueList) Render() app.UI {
	n := len(q.Entries)
	heading := waitingWords(n)
	rows := make([]app.UI, n)
	for i, e := range q.Entries {
		var left app.UI
		if e.Countdown != "" {
			left = words(" · " + e.Countdown)
		}
		btn := elem("button", "fb-queue-item",
			el("span", "fb-queue-who", text("bdi", "", e.Requester)),
			serverText("span", "fb-queue-what", e.Summary),
			el("span", "fb-queue-when", words(e.Ago), left),
		).
			Attr("type", "button").
			DataSet("request-id", e.ID).
			OnClick(q.onPick(e.ID), e.ID)
		if e.Selected {
			btn.Aria("current", "true")
		}
		rows[i] = el("li", "", btn)
	}
	return elem("nav", "fb-queue",
		text("h2", "fb-queue-title", heading),
		el("ul", "", rows...),
	).Aria("label", "Requests waiting")
}
