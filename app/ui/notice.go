package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// Outcomes shown on notices (data-outcome) besides the bridge's own
// (wire.Outcome*): a URL-mode request waiting for the other tab, then
// finished there, and a request that vanished while the widget was
// offline.
const (
	outcomeWaiting   = "waiting"
	outcomeCompleted = "completed"
	outcomeGone      = "gone"
)

// maxNotices bounds the notices kept on screen, so that old ones never
// push the open request far down: the newest few say what happened.
// Notices waiting for a link's other tab stay besides, up to as many
// again: they tell the person how that request is doing, but a server
// need never say complete, and links opened all day must not pile up.
const maxNotices = 3

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
}

// addNotice puts n first, replacing any notice about the same request.
func (w *widget) addNotice(n notice) {
	out := []notice{n}
	for _, old := range w.notices {
		if old.RequestID != n.RequestID && (len(out) < maxNotices || old.Outcome == outcomeWaiting && len(out) < 2*maxNotices) {
			out = append(out, old)
		}
	}
	w.notices = out
}

// onNoticeDismiss removes a notice ("OK", or "Hide this message" while
// waiting for a link's other tab: it only closes it here; the server
// already has its answer).
func (w *widget) onNoticeDismiss(requestID string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		for i, n := range w.notices {
			if n.RequestID == requestID {
				w.notices = append(w.notices[:i:i], w.notices[i+1:]...)
				w.refocus(ctx)
				return
			}
		}
	}
}

func (w *widget) renderNotices() app.UI {
	rows := make([]app.UI, len(w.notices))
	for i, n := range w.notices {
		dismiss, id := w.onNoticeDismiss(n.RequestID), n.RequestID
		var buttons []app.UI
		if n.Outcome == outcomeWaiting {
			// Not "Done": it tells the app nothing (the other tab does).
			buttons = []app.UI{button("", "done", "Hide this message", dismiss, id, "done")}
		} else {
			buttons = []app.UI{
				// No aria-label: speech input finds a button by the
				// words on it ("click OK"), so its name is those words.
				button("", "dismiss", "OK", dismiss, id, "ok"),
			}
		}
		var who app.UI
		if n.Name != "" {
			who = text("bdi", "fb-who", n.Name)
		}
		var what app.UI
		if n.Summary != "" {
			what = serverText("p", "fb-notice-what", n.Summary)
		}
		rows[i] = elem("div", "fb-notice fb-notice-"+n.Outcome,
			el("p", "fb-notice-text", words(n.Before), who, words(n.After)),
			what,
			el("div", "fb-actions", buttons...),
		).DataSet("outcome", n.Outcome).DataSet("request-id", id)
	}
	// Not a live region: each notice is said once, when it comes, by
	// focus or in the widget's status region (widget.arrival; see settle).
	return el("div", "fb-notices", rows...)
}

// spoken is the notice in words for the status region: its sentence and
// what was asked.
func (n notice) spoken() string {
	s := n.Before + n.Name + n.After
	if n.Summary != "" {
		s += " " + n.Summary
	}
	return s
}
