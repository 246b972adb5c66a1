package ui

import (
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Outcomes shown on notices (data-outcome) besides the bridge's own
// (wire.Outcome*): a URL-mode request waiting for the other tab, then
// finished there, and a request that vanished while the widget was
// offline.
const (
	outcomeWaiting   = "waiting"
	outcomeCompleted = "completed"
	outcomeGone      = "gone"
)

// maxNotices bounds the notices kept on screen.
const maxNotices = 5

// notice tells the person why a request left the queue. Its sentence
// is built around the requester's name, which is kept apart (Name) so
// it can be isolated as server text.
type notice struct {
	RequestID     string
	Outcome       string
	Before, Name  string // "Sent to " + name + After
	After         string
	Summary       string // what was asked
	ElicitationID string // URL mode: the id complete will name
	At            time.Time
}

// addNotice puts n first, replacing any notice about the same request.
func (w *widget) addNotice(n notice) {
	out := []notice{n}
	for _, old := range w.notices {
		if old.RequestID != n.RequestID && len(out) < maxNotices {
			out = append(out, old)
		}
	}
	w.notices = out
}

// onNoticeDismiss removes a notice ("OK", or Done / Cancel while
// waiting for a link's other tab: both only close it here; the server
// already has its answer).
func (w *widget) onNoticeDismiss(requestID string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		for i, n := range w.notices {
			if n.RequestID == requestID {
				w.notices = append(w.notices[:i:i], w.notices[i+1:]...)
				return
			}
		}
	}
}

func (w *widget) renderNotices() app.UI {
	rows := make([]app.UI, len(w.notices))
	for i, n := range w.notices {
		var buttons []app.UI
		if n.Outcome == outcomeWaiting {
			buttons = []app.UI{
				app.Button().Type("button").Class("fb-primary").DataSet("action", "done").
					OnClick(w.onNoticeDismiss(n.RequestID), n.RequestID, "done").Body(app.Text("Done")),
				app.Button().Type("button").DataSet("action", "dismiss").
					OnClick(w.onNoticeDismiss(n.RequestID), n.RequestID, "dismiss").Body(app.Text("Cancel")),
			}
		} else {
			buttons = []app.UI{
				app.Button().Type("button").DataSet("action", "dismiss").
					Aria("label", "Dismiss this message").
					OnClick(w.onNoticeDismiss(n.RequestID), n.RequestID, "ok").Body(app.Text("OK")),
			}
		}
		rows[i] = app.Div().
			Class("fb-notice fb-notice-"+n.Outcome).
			DataSet("outcome", n.Outcome).
			DataSet("request-id", n.RequestID).
			Body(
				app.P().Class("fb-notice-text").Body(
					app.Text(n.Before),
					app.If(n.Name != "", app.Bdi().Class("fb-who").Body(app.Text(n.Name))),
					app.Text(n.After),
				),
				app.If(n.Summary != "", app.P().Class("fb-notice-what").Dir("auto").Body(app.Text(n.Summary))),
				app.Div().Class("fb-actions").Body(buttons...),
			)
	}
	// One live region for all notices, present from the start, so screen
	// readers announce each new one politely.
	return app.Div().Class("fb-notices").Aria("live", "polite").Body(rows...)
}
