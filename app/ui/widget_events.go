package ui

import (
	"slices"
	"strings"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// This file is how the widget follows the connection: each method takes
// one event from the bridge, on the UI goroutine.

// onConnectionChange records the connection state. A retry while
// offline is still offline, on screen and to an embedding page: each
// attempt would otherwise flip "Offline, trying again…" to
// "Connecting…" and back.
func (w *widget) onConnectionChange(state string) {
	if state == connConnecting && w.state == connOffline {
		return
	}
	switch state {
	case connOnline, connConnecting, connOffline:
		w.state = state
		w.synced = w.synced && state == connOnline
	}
}

// onHello records who the bridge is. The requests it still holds follow
// (onRequest), then onSynced says which they were.
func (w *widget) onHello(ctx app.Context, h *wire.HelloResult) {
	w.server = h.ServerInfo
	draftChannel = h.Channel
}

// setClock corrects the widget's clock to the bridge's, read in hello's
// answer (bridge) when it reached the page (heard).
func (w *widget) setClock(bridge, heard time.Time) {
	w.skew = clockSkew(bridge, heard)
	w.now = w.clock()
}

// onRequest adds a pending request, or refreshes one already held.
func (w *widget) onRequest(ctx app.Context, id string, params wire.ElicitParams, meta wire.RequestMeta) {
	defer w.updateTitle()
	if held := w.queue.find(id); held != nil {
		// Sent again after a reconnect: an answer sent before the drop
		// did not arrive. It goes again, as the person meant it to; the
		// bridge takes the same answer twice as one.
		if w.resend(held) {
			return
		}
		held.Draft.Sent = ""
		held.Draft.Opened = false // a link's accept was lost too: offer Open again
		held.rev++
		return
	}
	w.requestsMoved()
	w.seq++
	it := newItem(id, w.seq, params, meta, w.clock())
	restoreDraft(it)
	w.queue.add(it)
	if w.selected == "" || w.queue.find(w.selected) == nil {
		w.selected = it.ID
	}
	// Focus moving to a request is what tells a screen reader it came.
	// One that waits behind the open one, or that may not take focus
	// (focusOnShow), is said in a live region instead. Not the ones the
	// bridge replays as the page connects: they are not news, and the
	// list's heading counts them.
	if w.synced && (w.selected != it.ID || !mayTakeFocus()) {
		w.say("New request from " + it.Requester() + ". " + waitingWords(w.queue.len()) + ".")
	}
	if pageHidden() {
		notify("New request", isolated(it.Requester())+" is asking you something.")
	}
}

// say puts words in the page's status region, always in the
// accessibility tree, for screen readers to read out. The same words
// again change nothing in the page, and a screen reader hears nothing: a
// no-break space makes them new.
func (w *widget) say(words string) {
	if words == w.arrival {
		words += "\u00a0"
	}
	w.arrival = words
}

// resend sends again the answer a dropped connection may have lost, and
// reports whether it went; false when nothing was waiting to be
// confirmed.
func (w *widget) resend(it *item) bool {
	res := it.Draft.lastSent
	if res == nil || it.Draft.Sent == "" {
		return false
	}
	it.Draft.resent = true
	w.answer(it, *res)
	return it.Draft.SendError == ""
}

// restoreDraft brings back what the person typed before a reload.
func restoreDraft(it *item) {
	var saved draft
	if !loadStored(draftKey(it.ID), &saved) {
		return
	}
	if saved.Inputs != nil {
		it.Draft.Inputs = saved.Inputs
	}
	it.Draft.Touched, it.Draft.Changed = saved.Touched, saved.Changed
	it.start()
}

// onSettled handles a request leaving the queue, or the bridge refusing
// an answer (which keeps it open with the reasons shown).
func (w *widget) onSettled(ctx app.Context, p *wire.SettledParams) {
	it := w.queue.find(p.RequestID)
	if it == nil {
		return
	}
	if p.Outcome == wire.OutcomeRejected {
		it.Draft.reject(p.Errors)
		it.rev++
		return
	}
	w.settle(ctx, it, p.Outcome, p.Action)
}

// settle removes it with a notice saying why (action: see settledNotice).
func (w *widget) settle(ctx app.Context, it *item, outcome, action string) {
	// The last request leaving takes focus with it: the person's own
	// answer (Send and the rest are disabled meanwhile, which blurs
	// them), or one called off while they were in it. Focus on an entry
	// of the list of requests stays with its request (keepRowFocus).
	focusToNotice := false
	if row := focusedRow(); row != "" {
		w.keepRowFocus(ctx, row)
	} else if w.queue.len() == 1 && (it.Draft.Sent != "" || focusInForm()) {
		w.refocus(ctx)
		focusToNotice = mayTakeFocus()
	}
	if w.selected == it.ID {
		w.selected = ""
		if next := w.queue.after(it.ID); next != nil {
			w.selected = next.ID
		}
	}
	w.queue.remove(it.ID)
	if w.queue.len() == 0 {
		unnotify()
	}
	w.requestsMoved()
	// Also for a request missing from a resync: Synced lists exactly
	// what the bridge holds, so it will not come back.
	it.left = true
	tabStorage.removeItem(draftKey(it.ID))
	n := settledNotice(it, outcome, action)
	w.addNotice(n)
	// A notice is said once: by focus when focus moves to it, else in
	// the page's status region (arrival), which is always in the
	// accessibility tree. The notices' own box is display: none while
	// empty, so its first notice was news to no screen reader; and
	// go-app reuses its rows by position, so a live region there read
	// every older notice again with each new one. A notice's words
	// differ from any arrival's, so an arrival after them is news again.
	if focusToNotice {
		w.arrival = ""
	} else {
		w.say(n.spoken())
	}
	w.updateTitle()
	// The embedding page hears of every request that leaves, also one
	// found gone after a reconnect: "unknown" to it, as EMBED.md says.
	if outcome == outcomeGone {
		outcome = wire.OutcomeUnknown
	}
	w.host.Settled(it.ID, outcome)
}

// settledNotice words the notice for a request that left.
func settledNotice(it *item, outcome, action string) notice {
	n := notice{RequestID: it.ID, Outcome: outcome, Name: it.Requester(), Summary: it.Summary()}
	switch outcome {
	case wire.OutcomeAnswered:
		switch it.Draft.Sent {
		case wire.ActionAccept:
			if it.Params.IsURL() {
				n.Outcome = outcomeWaiting
				n.ElicitationID = it.Params.ElicitationID
				n.Before, n.After = "Waiting for you to finish in the other tab. ", " will know when you are done."
				break
			}
			n.Before, n.After = "Sent to ", "."
			if it.Form != nil && len(it.Form.Fields) == 0 {
				// Its button said Accept: nothing was typed to send.
				n.Before, n.After = "You accepted. ", " has been told."
			}
		case wire.ActionDecline:
			n.Before, n.After = "You declined. ", " has been told."
		case wire.ActionCancel:
			n.Before, n.After = "Skipped. ", " was told you did not answer."
		default:
			n.Before, n.After = "Your answer was delivered to ", "."
		}
	case wire.OutcomeAnsweredElsewhere:
		// action is how the winning answer ended it ("" from a bridge
		// that does not say).
		done := "answered"
		switch action {
		case wire.ActionDecline:
			done = "declined"
		case wire.ActionCancel:
			done = "skipped"
		}
		n.Name, n.After = "", ""
		n.Before = "It was " + done + " in another window or by someone else, so it was closed here."
		if action == wire.ActionCancel {
			n.Before = "It was skipped in another window or by someone else, so it was closed here without an answer."
		}
		if it.Draft.Sent != "" {
			// This widget's answer went, and lost: had it arrived first,
			// the bridge would have said "answered" (also to a resend).
			n.Before = "It was " + done + " in another window or by someone else first, so your answer was not delivered."
		}
	case wire.OutcomeCancelled:
		// Not "withdrew": the service stopping cancels requests too.
		n.Before, n.After = "This request from ", " was called off before you answered."
	case wire.OutcomeExpired:
		n.Before, n.After = "This request from ", " expired before it was answered."
	case wire.OutcomeUnknown:
		n.Outcome = outcomeGone
		if it.Draft.resent {
			// Sent again after a drop: the first may have settled it
			// before the bridge restarted, and only the word was lost.
			n.Before, n.After = "This request from ", " closed while the connection was down, so there is no telling whether your answer arrived. If it matters, check with whoever asked."
			break
		}
		if it.Draft.Sent != "" {
			n.Before, n.After = "Your answer was not delivered: this request from ", " had already closed, perhaps because the service restarted. If it still matters, check with whoever asked."
			break
		}
		n.Before, n.After = "This request from ", " is no longer waiting."
	case outcomeGone:
		// Found out on reconnecting: it ended while the widget was away.
		n.Before, n.After = "This request from ", " closed while the connection was down, so nothing was sent."
		if it.Draft.Sent != "" {
			n.After = " closed while the connection was down. Your answer may not have reached it."
		}
	default:
		n.Outcome = outcomeGone
		n.Before, n.After = "This request from ", " is no longer waiting."
	}
	return n
}

// onSynced ends a reconnect: the bridge has sent every request it still
// holds (ids). Any other request kept from before settled while the
// widget was away, or the bridge restarted and lost it: it is withdrawn
// with a notice, never left as a form nobody waits for. One the person
// had answered may have settled by that very answer, whose word was
// lost with the connection: the answer goes again, and the bridge's
// reply (answered, or -32003 for one it no longer knows) says which.
func (w *widget) onSynced(ctx app.Context, ids []string) {
	w.synced = true
	// Drafts of requests that settled while the page was away (a reload,
	// a tab restored) would otherwise stay as long as the tab, filling
	// its storage until no new draft can be kept.
	// Only this channel's: another frame in this tab, on another channel,
	// keeps its drafts in the same storage.
	for _, k := range tabStorage.keys() {
		if id, ok := strings.CutPrefix(k, draftPrefix()); ok && !strings.Contains(id, "/") && !slices.Contains(ids, id) {
			tabStorage.removeItem(k)
		}
	}
	for _, it := range append([]*item(nil), w.queue.items...) {
		if slices.Contains(ids, it.ID) {
			continue
		}
		if w.resend(it) {
			continue
		}
		w.settle(ctx, it, outcomeGone, "")
	}
}

// onGone: the bridge answered the person's answer with -32003, it holds
// no such request (it restarted since, or forgot one settled long ago).
// The answer went nowhere; the form is withdrawn saying so.
func (w *widget) onGone(ctx app.Context, id string) {
	if it := w.queue.find(id); it != nil {
		w.settle(ctx, it, wire.OutcomeUnknown, "")
	}
}

// onAnswerRefused: the bridge answered the person's answer with an error
// (not -32003): it did not take it, and the request still waits. The
// form leaves "Sending…", so the person can send again, or decline.
func (w *widget) onAnswerRefused(id string) {
	if it := w.queue.find(id); it != nil && it.Draft.Sent != "" {
		it.Draft.Sent, it.Draft.lastSent = "", nil
		it.Draft.SendError = "The service did not accept your reply. Try again, or choose Decline or Skip."
		it.rev++
	}
}

// onComplete: the person finished the step of a URL-mode request in the
// other tab. An unknown or finished id is ignored, as MCP requires.
func (w *widget) onComplete(p *wire.CompleteParams) {
	for i := range w.notices {
		n := &w.notices[i]
		if n.Outcome == outcomeWaiting && n.ElicitationID != "" && n.ElicitationID == p.ElicitationID {
			n.Outcome = outcomeCompleted
			n.Before, n.After = "Finished. ", " knows you completed the step in the other tab."
			w.say(n.spoken())
			return
		}
	}
}

// onFatal: the widget stopped trying to connect.
func (w *widget) onFatal(unauthorized bool) {
	w.state = connOffline
	switch {
	case unauthorized && embedded:
		// Inside another app's page the person was sent no link.
		w.fatal = "This app could not open your requests: its access was not accepted. Reload the page; if that does not help, tell whoever runs this app."
		return
	case unauthorized:
		w.fatal = "The access key in this link was not accepted. It may have expired or been replaced: ask whoever sent you the link for a new one."
		return
	}
	w.fatal = "This page cannot find the service it should connect to. Check the link, or ask whoever sent it for a new one."
}

// isolated wraps a server's name in a first-strong isolate (FSI … PDI)
// for plain text, such as a notification's, so a right-to-left name does
// not carry the words after it along. Isolates of its own are dropped:
// one could end the wrapping early.
func isolated(name string) string {
	return "\u2068" + strings.Map(func(r rune) rune {
		if r >= 0x2066 && r <= 0x2069 {
			return -1
		}
		return r
	}, name) + "\u2069"
}
