package ui

import (
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/formbridge/formbridge/app/client"
	"github.com/formbridge/formbridge/app/embed"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// responder sends an answer to the bridge; *client.Client is one.
type responder interface {
	Respond(id string, result wire.ElicitResult) error
}

// Connection states, shown on the root as data-connection.
const (
	connConnecting = "connecting"
	connOnline     = "online"
	connOffline    = "offline"
)

// widget is the root component: the page a person keeps open to answer
// requests. It holds the connection, the queue of pending requests, the
// one that is open, and notices about requests that left.
type widget struct {
	app.Compo

	conn       responder
	state      string // connConnecting, connOnline, connOffline
	synced     bool   // online, and the bridge has sent every request it holds
	noLink     bool   // the page was opened without a token
	fatal      string // why the widget stopped trying, in plain words
	server     wire.Implementation
	queue      queue
	selected   string // id of the open request
	notices    []notice
	arrival    string        // a new request, in words, for screen readers (see onRequest)
	seq        int           // numbers items for element ids
	now        time.Time     // the clock the countdowns read, moved on when one would change (armTick)
	skew       time.Duration // the bridge's clock less the device's (clockSkew)
	baseTitle  string
	permission string // browser notification permission
	refusedNow bool   // the browser refused notifications when the person asked

	releaseVisibility func()
	releaseOnline     func()
	releaseHash       func() // onLinkChange's listener; nil when embedded
	reconnect         func() // the client's Retry; nil until it runs

	tickTimer *time.Timer // runs tick when a clock changes; nil when none will
	tickArmed int         // counts armTick's calls: a timer armed before the last does nothing

	host  *embed.Host  // the page embedding this widget (embed.js); nil on a page of its own
	watch *embed.Watch // words a bridge on another origin that never answers

	flushQueued atomic.Bool // renderNow's flush is queued and has not run

	warm warmup // the hidden rounds that get the form code compiled (warmup.go)
}

// clock is the time on the bridge's clock.
func (w *widget) clock() time.Time { return time.Now().Add(w.skew) }

func (w *widget) OnMount(ctx app.Context) {
	w.now = w.clock()
	w.state = connConnecting
	w.permission = notificationPermission()
	if !app.IsClient {
		return
	}
	allowZoom()
	w.baseTitle = pageTitle()
	if w.baseTitle == "" {
		w.baseTitle = "formbridge"
	}
	w.releaseVisibility = app.Window().AddEventListener("visibilitychange", w.onVisibilityChange)
	w.releaseOnline = app.Window().AddEventListener("online", w.onOnline)
	w.connect(ctx)
}

// armTick has tick run when a clock on screen next reads differently
// (untilClockChange), and at no other time: with nothing waiting, never.
// A tick each second woke the page 13 times a second all day (each
// restarted go-app's frame loop, which then slowed down over six more
// frames). It is armed again after each tick and each client event.
func (w *widget) armTick(ctx app.Context) {
	if w.tickTimer != nil {
		w.tickTimer.Stop()
		w.tickTimer = nil
	}
	w.tickArmed++
	wait := untilClockChange(w.now, w.queue.items)
	if wait <= 0 || !app.IsClient {
		return
	}
	armed := w.tickArmed
	// The tick is the widget's own, whichever context armed it: one from
	// a window listener (visibilitychange) has the page's body as its
	// source, and the re-render tick asks for with it updates nothing, so
	// every clock on screen stopped once the tab had been shown again.
	d := ctx.Dispatcher()
	w.tickTimer = time.AfterFunc(wait, func() {
		d.Dispatch(app.Dispatch{Mode: app.Defer, Source: w, Function: func(ctx app.Context) {
			if armed != w.tickArmed {
				return // armed again since
			}
			w.tickTimer = nil
			w.tick(ctx, w.clock())
			w.armTick(ctx)
		}})
	})
}

// untilClockChange is how long after now a clock the widget may show
// for items first reads differently (see clockFace), 0 when none ever
// will.
func untilClockChange(now time.Time, items []*item) time.Duration {
	next := time.Duration(0)
	for _, it := range items {
		for _, d := range [2]time.Duration{untilAgoChanges(now, it.Created()), untilCountdownChanges(now, it.Meta.ExpiresAt)} {
			if d > 0 && (next == 0 || d < next) {
				next = d
			}
		}
	}
	return next
}

// tick moves the clock on, and re-renders only when a clock on screen
// reads differently: each second in a countdown's last minutes, each
// minute for "3 minutes ago". A page with nothing changing does no work.
// (ctx.Defer, unlike ctx.Dispatch, does not re-render by itself.)
func (w *widget) tick(ctx app.Context, now time.Time) {
	before := w.clockFace(w.now)
	warning := ""
	if open := w.queue.find(w.selected); open != nil {
		warning = deadlineWarning(w.now, now, open.Meta.ExpiresAt)
	}
	w.now = now
	if warning != "" {
		w.say(warning)
	}
	if warning != "" || w.clockFace(now) != before {
		ctx.Dispatch(func(app.Context) {})
	}
}

// clockFace is every clock the widget may show at now, as one string.
func (w *widget) clockFace(now time.Time) string {
	var face strings.Builder
	for _, it := range w.queue.items {
		face.WriteString(ago(now, it.Created()))
		face.WriteString(countdown(now, it.Meta.ExpiresAt))
		face.WriteByte(0)
	}
	return face.String()
}

func (w *widget) OnDismount() {
	if w.tickTimer != nil {
		w.tickTimer.Stop()
	}
	if w.releaseVisibility != nil {
		w.releaseVisibility()
	}
	if w.releaseOnline != nil {
		w.releaseOnline()
	}
	if w.releaseHash != nil {
		w.releaseHash()
	}
	w.host.Close()
}

// onVisibilityChange clears the "(2) …" title once the person is back.
// A person coming back to the page while it waits to reconnect (a phone
// unlocked) need not wait out the backoff either.
func (w *widget) onVisibilityChange(ctx app.Context, e app.Event) {
	w.updateTitle()
	if !pageHidden() {
		w.onOnline(ctx, e)
		// The clock's timer may not count time the device slept, nor run
		// on time in a background tab: the clocks on screen would wait
		// out what was left of it.
		w.tick(ctx, w.clock())
		w.armTick(ctx)
	}
}

// onOnline: the browser says the network is back (a phone out of a
// tunnel). A widget waiting to reconnect does so now: its backoff could
// otherwise keep a request that came meanwhile off the screen for up to
// 30 s.
func (w *widget) onOnline(app.Context, app.Event) {
	if w.reconnect != nil {
		w.reconnect()
	}
}

// updateTitle shows the number of waiting requests in the tab's title
// while the tab is in the background.
func (w *widget) updateTitle() {
	if w.baseTitle == "" {
		return
	}
	setPageTitle(titleFor(w.baseTitle, w.queue.len(), pageHidden()))
}

// titleFor is the tab title: "(2) base" while hidden with requests
// waiting, so the count shows in the tab strip.
func titleFor(base string, waiting int, hidden bool) string {
	if waiting > 0 && hidden {
		return "(" + strconv.Itoa(waiting) + ") " + base
	}
	return base
}

// answer sends a person's answer. Offline, the request stays open with
// the answer kept, and the person is told to send it again.
func (w *widget) answer(it *item, res wire.ElicitResult) {
	if w.conn == nil {
		it.Draft.SendError = "Not connected, so nothing was sent. Your answers are kept here."
		return
	}
	if err := w.conn.Respond(it.ID, res); err != nil {
		it.Draft.SendError = "You are offline, so nothing was sent. Your answers are kept: send again once the connection is back."
		if err == client.ErrAnswerTooLarge {
			it.Draft.SendError = "Your answers are too long to send, so nothing was sent. Shorten the longest one, then press Send again."
		}
		return
	}
	it.Draft.SendError = ""
	it.Draft.Sent = res.Action
	it.Draft.lastSent = &res
}

// offline reports that an answer would not reach the bridge now.
func (w *widget) offline() bool { return w.conn == nil || w.state != connOnline }

// selectRequest opens another pending request.
func (w *widget) selectRequest(id string) {
	if w.queue.find(id) != nil {
		w.selected = id
	}
}

// onAskNotifications asks the browser to allow notifications.
func (w *widget) onAskNotifications(ctx app.Context, e app.Event) {
	askNotificationPermission(ctx, func(ctx app.Context, p string) { w.permission, w.refusedNow = p, p == "denied" })
}

func (w *widget) Render() app.UI {
	var foot app.UI
	// Embedded, the host page gets the pending count instead, and
	// browsers refuse permission prompts from a cross-origin frame.
	switch {
	case w.noLink || w.fatal != "" || w.host != nil:
	case w.permission == "default":
		foot = el("footer", "fb-foot",
			button("fb-link-button", "", "Tell me when a new request arrives", w.onAskNotifications),
		)
	case w.refusedNow:
		// Said once, to the person who just asked: not on every visit.
		foot = el("footer", "fb-foot", text("p", "fb-hint", "This browser blocks notifications from this page, so none will come. Keep the page open to see new requests."))
	}
	return elem("div", "fb-widget",
		el("header", "fb-bar",
			text("span", "fb-brand", "formbridge"),
			w.renderConnection(),
		),
		el("main", "fb-main",
			text("h1", "fb-sr-only", "Requests for you"),
			roleText("status", "fb-sr-only fb-arrival", w.arrival),
			w.renderNotices(),
			w.renderContent(),
		),
		foot,
		w.renderWarmup(),
	).DataSet("connection", w.state)
}

// renderConnection is the connection state in words, not only colour.
func (w *widget) renderConnection() app.UI {
	label := "Connecting…"
	switch {
	case w.noLink || w.fatal != "":
		label = "Not connected"
	case w.state == connOnline:
		label = "Connected"
	case w.state == connOffline:
		label = "Offline, trying again…"
	}
	return elem("p", "fb-conn",
		elem("span", "fb-conn-dot").Aria("hidden", true),
		words(label),
	).Role("status")
}

// renderContent is the main area: a problem, the empty state, or the
// queue and the open request.
func (w *widget) renderContent() app.UI {
	switch {
	case w.noLink && embedded:
		// Inside another app's page: the person was sent no link.
		return emptyState("alert", "No requests can be shown", "This app did not pass on your access, so the requests waiting for you cannot be shown here. Tell whoever runs this app.")
	case w.noLink:
		return emptyState("alert", "This link is incomplete", "This page shows requests that apps send you for approval or details, but the link you opened has no access key. Ask whoever sent it for the full link.")
	case w.fatal != "":
		return emptyState("alert", "Cannot connect", w.fatal)
	case w.queue.len() == 0:
		// Not "nothing to answer" before the bridge has said so: someone
		// on a slow phone would close the page with requests waiting.
		title, more := "Looking for requests…", ""
		switch {
		case w.synced:
			title, more = "Nothing to answer right now", " New ones appear here as they arrive."
			if !embedded {
				more = " Keep this page open: new ones appear here as they arrive."
			}
		case w.state == connOffline:
			title, more = "Cannot check for requests right now", " The connection is down, and it keeps trying to reconnect."
		}
		// Not "this page": embedded, it is a panel of another app's page.
		return emptyState("", title, "Requests that apps and AI assistants send you appear here: questions to answer, or things to approve."+more)
	}
	open := w.queue.find(w.selected)
	if open == nil {
		open = w.queue.items[0]
	}
	left := countdown(w.now, open.Meta.ExpiresAt)
	card := &requestCard{Item: open, Rev: open.rev, Countdown: left, Answer: w}
	// The list's slot is always filled, so the card keeps its place in
	// the tree and go-app does not remount it (losing focus) when a
	// second request arrives.
	var list app.UI = el("div", "fb-queue-none")
	if w.queue.len() > 1 {
		list = w.renderQueue(open)
	}
	return el("div", "fb-content", list, card)
}

// emptyState is the main area with no request to show: a heading and a
// sentence, announced at once when role is "alert".
func emptyState(role, heading, sentence string) app.UI {
	e := elem("section", "fb-empty", text("h2", "", heading), text("p", "", sentence))
	if role != "" {
		e.Role(role)
	}
	return e
}
