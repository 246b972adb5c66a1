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

func (q *queueList) Render() app.UI {
	n := len(q.Entries)
	heading := "1 request waiting"
	if n != 1 {
		heading = strconv.Itoa(n) + " requests waiting"
	}
	rows := make([]app.UI, n)
	for i, e := range q.Entries {
		btn := app.Button().
			Type("button").
			Class("fb-queue-item").
			DataSet("request-id", e.ID).
			OnClick(q.onPick(e.ID), e.ID).
			Body(
				app.Span().Class("fb-queue-who").Body(app.Bdi().Body(app.Text(e.Requester))),
				app.Span().Class("fb-queue-what").Dir("auto").Body(app.Text(e.Summary)),
				app.Span().Class("fb-queue-when").Body(
					app.Text(e.Ago),
					app.If(e.Countdown != "", app.Text(" · "+e.Countdown)),
				),
			)
		if e.Selected {
			btn = btn.Aria("current", "true")
		}
		rows[i] = app.Li().Body(btn)
	}
	return app.Nav().Class("fb-queue").Aria("label", "Requests waiting").Body(
		app.H2().Class("fb-queue-title").Body(app.Text(heading)),
		app.Ul().Body(rows...),
	)
}
