package embed

import (
	"errors"
	"net/url"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Link is where the widget connects: a bridge URL ("" = the page's own
// origin) and the channel's token.
type Link struct {
	Bridge string
	Token  string
}

// Host is the page that embeds the widget, as the widget sees it. A nil
// *Host is a widget that is not embedded: every method is then a no-op,
// so the widget calls them unconditionally.
type Host struct {
	ctx    app.Context
	origin string // the host page's origin, e.g. https://chat.example.com
	parent app.Value
	onLink func(ctx app.Context, l Link)
	linked bool
	// heardInit: the host's init came before the widget started, kept
	// by the page's script (web/connect.js).
	heardInit bool

	onMessage app.Func
	height    *heightReporter
	theme     themer

	// What the host was last told, so it hears of changes only.
	pending int
	state   string
}

// Attach makes the widget an embedded one when the page runs in an
// iframe whose URL names the host's origin (#host=…), as embed.js opens
// it. It then tells the host it is ready (unless the page's script did
// and the host has answered) and, when the host's init arrives, calls
// onLink on the UI goroutine with the link to connect
// with. It returns nil, doing nothing, on a page of its own (or on the
// host side of go-app, in tests and prerendering).
func Attach(ctx app.Context, onLink func(ctx app.Context, l Link)) *Host {
	if !app.IsClient {
		return nil
	}
	win := app.Window()
	parent := win.Get("parent")
	if !parent.Truthy() || parent.Equal(win.JSValue()) {
		return nil
	}
	origin, ok := hostOrigin(win.Get("location").Get("hash").String())
	if !ok {
		return nil
	}
	h := &Host{ctx: ctx, origin: origin, parent: parent, onLink: onLink, pending: -1}
	h.onMessage = app.FuncOf(func(this app.Value, args []app.Value) any {
		h.receive(args[0])
		return nil
	})
	win.Call("addEventListener", "message", h.onMessage)
	h.height = startHeightReporter(func(px int) { h.post(TypeHeight, map[string]any{"height": px}) })
	// The page's script may have said ready already, and kept what the
	// host sent since; it stops listening as the widget starts. A host
	// that has not answered it (one that began listening only at the
	// frame's load event) is told again, as before the script said it.
	if early := win.Get(pageFrame); early.Truthy() {
		held := early.Call("take")
		for i := range held.Length() {
			h.heardInit = h.receive(held.Index(i)) == TypeInit || h.heardInit
		}
	}
	if !h.heardInit {
		h.post(TypeReady, nil)
	}
	return h
}

// HeardInit reports whether the host's init came before the widget
// started, kept by the page's script.
func (h *Host) HeardInit() bool { return h.heardInit }

// pageFrame is the global web/connect.js leaves in a frame: it listened
// to the host page from the page's start, so it could connect with
// init's token while the wasm loaded.
const pageFrame = "formbridgeFrame"

// hostOrigin reads "#host=<origin>" and keeps it only when it is an
// http(s) origin and nothing more (no path, user or query), so it can be
// compared with a MessageEvent's origin as is.
func hostOrigin(fragment string) (string, bool) {
	q, err := url.ParseQuery(strings.TrimPrefix(fragment, "#"))
	if err != nil {
		return "", false
	}
	return checkOrigin(q.Get("host"))
}

func checkOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), true
}

// receive handles one message event, and returns its type ("" when it
// is dropped). Only the parent window, at the origin the iframe was
// opened for, is listened to; anything else (other frames, extensions, a
// page that framed the widget under another name) is dropped unread.
func (h *Host) receive(ev app.Value) string {
	if ev.Get("origin").String() != h.origin || !ev.Get("source").Equal(h.parent) {
		return ""
	}
	// JavaScript's String() turns data that is not a string into text
	// parseInbound finds is not ours ("[object Object]", "10"); Go's
	// Value.String panics at a BigInt.
	m, err := parseInbound(app.Window().Call("String", ev.Get("data")).String())
	if errors.Is(err, errNotOurs) {
		return ""
	}
	if err != nil {
		warn("formbridge: ignored a message from the host page: " + err.Error())
		return ""
	}
	h.ctx.Dispatch(func(ctx app.Context) { h.handle(ctx, m) })
	return m.Type
}

// handle acts on a host message, on the UI goroutine.
func (h *Host) handle(ctx app.Context, m inbound) {
	switch m.Type {
	case TypeInit:
		if m.Theme != nil {
			h.setTheme(m.Theme)
		}
		// The first init connects; later ones (the host answering a
		// second ready after a reload of the frame) must not open a
		// second connection.
		if h.linked {
			return
		}
		h.linked = true
		h.onLink(ctx, Link{Bridge: m.Bridge, Token: m.Token})
	case TypeTheme:
		h.setTheme(m.Theme)
	case TypeFocus:
		focusFirst()
	}
}

func (h *Host) setTheme(t *Theme) {
	for _, p := range h.theme.apply(t) {
		warn("formbridge: " + p)
	}
	h.height.measure()
}

// Report tells the host the connection state and how many requests wait,
// when either changed.
func (h *Host) Report(state string, pending int) {
	if h == nil {
		return
	}
	if state != "" && state != h.state {
		h.state = state
		h.post(TypeConnection, map[string]any{"state": state})
	}
	if pending != h.pending {
		h.pending = pending
		h.post(TypePending, map[string]any{"count": pending})
	}
}

// Refused tells the host the bridge refused the token, so the widget has
// stopped trying: a connection event "offline" with reason
// "unauthorized", which a host tells from a dropped network by it.
func (h *Host) Refused() {
	if h == nil {
		return
	}
	h.state = "offline"
	h.post(TypeConnection, map[string]any{"state": "offline", "reason": "unauthorized"})
}

// Settled tells the host a request left, and how. Rejected answers are
// not settled (the request stays open), so they are not reported.
func (h *Host) Settled(id, outcome string) {
	if h == nil || outcome == "rejected" {
		return
	}
	h.post(TypeSettled, map[string]any{"id": id, "outcome": hostOutcome(outcome)})
}

// hostOutcome is the outcome a host page is told: one embed.v1 lists,
// else "unknown". A bridge newer than this widget may settle a request
// in a way embed.v1 does not name, and the copies of embed.js host
// pages keep drop a settled message with an outcome they do not list:
// they must still hear that the request left.
func hostOutcome(outcome string) string {
	switch outcome {
	case "answered", "answered-elsewhere", "cancelled", "expired", "unknown":
		return outcome
	}
	return "unknown"
}

// Close stops listening and observing.
func (h *Host) Close() {
	if h == nil {
		return
	}
	app.Window().Call("removeEventListener", "message", h.onMessage)
	h.onMessage.Release()
	h.height.stop()
}

// post sends a message to the host page, and only to the origin the
// iframe was opened for: if another page framed the widget, the browser
// drops it.
func (h *Host) post(typ string, fields map[string]any) {
	h.parent.Call("postMessage", outbound(typ, fields), h.origin)
}

// focusFirst moves focus to the first control of the open request, or
// to the first button (not one of the warm-up's hidden sample), so a
// keyboard user the host sends here can act.
func focusFirst() {
	doc := app.Window().Get("document")
	el := doc.Call("querySelector", `form[data-elicitation-id] :is(input:not([type=hidden]), textarea, select, button), [data-action]:not([hidden] *)`)
	if el.Truthy() {
		el.Call("focus")
		return
	}
	app.Window().Call("focus")
}

func warn(msg string) {
	if app.IsClient {
		app.Window().Get("console").Call("warn", msg)
	}
}
