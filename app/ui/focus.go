package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// Page-wide facts for focus: there is one widget per page.
var (
	// embedded is set when the page is a host's iframe (embed.js).
	embedded bool
	// shownOne is set once the page has shown a request.
	shownOne bool
)

// mayTakeFocus reports whether a newly shown request may move keyboard
// focus at all. Embedded, while the frame does not have focus (the
// person is typing in the host's chat), it may not: focusing inside the
// frame would take the keyboard from the host page, and a Space could
// tick "Yes, delete" in a form nobody has read and an Enter send it. The
// host hears the new count (embed's pending message) and may call
// focus(); a live region tells screen readers (widget.arrival). A page
// of its own in a background tab takes no keys from anyone: focus there
// is where the person finds it on coming back.
func mayTakeFocus() bool {
	return app.IsClient && (!embedded || app.Window().Get("document").Call("hasFocus").Bool())
}

// focusOnShow puts focus on a newly shown request, when mayTakeFocus.
// The first request the page shows is the one the person opened it to
// answer: its first field (firstField, "" for none) takes focus, ready
// to type in. Any later one comes while the person may still be pressing
// keys meant for another (the server's next question right after an
// answer), so focus goes to its title, where a key does nothing. A
// screen reader starts reading at either.
func focusOnShow(title, firstField string) {
	first := !shownOne
	shownOne = true
	if !mayTakeFocus() {
		return
	}
	if first && firstField != "" {
		title = firstField
	}
	focusElement(title)
}

// focusInForm reports whether keyboard focus is in a request's form.
func focusInForm() bool { return focusWithin("form") }

// focusWithin reports whether keyboard focus is inside an element
// matching sel.
func focusWithin(sel string) bool {
	return app.IsClient && app.Window().Get("document").Get("activeElement").Call("closest", sel).Truthy()
}

// refocus, once the page has updated, gives focus a place when the
// element that held it left the page (an answered request, a notice
// closed): the newest notice, else the empty page's heading, else the
// open request's title. Left on <body>, the next Tab would start over at
// the top and a screen reader would lose its place.
func (w *widget) refocus(ctx app.Context) {
	w.afterUpdate(ctx, func(app.Context) { refocusNow() })
}

// refocusNow is refocus's work, for a page already updated.
func refocusNow() {
	doc := app.Window().Get("document")
	if el := doc.Call("querySelector", ".fb-notice, .fb-empty > h2, .fb-title"); el.Truthy() && mayTakeFocus() && doc.Get("activeElement").Equal(doc.Get("body")) {
		el.Call("setAttribute", "tabindex", "-1")
		el.Call("focus")
	}
}

// keepRowFocus, once the page has updated, puts focus back on the list
// entry with element id row; when that entry or the whole list has gone,
// where refocus would. go-app reuses the list's rows by position, so when
// an entry leaves, focus would otherwise stay on a row that now shows
// another request, and a screen reader would not say so.
func (w *widget) keepRowFocus(ctx app.Context, row string) {
	w.afterUpdate(ctx, func(app.Context) {
		if el := app.Window().GetElementByID(row); el.Truthy() {
			el.Call("focus")
			return
		}
		// The entry left. Its row may now show another request (rows are
		// reused by position): focus must not stay there unannounced.
		if focusedRow() != "" {
			app.Window().Get("document").Get("activeElement").Call("blur")
		}
		refocusNow()
	})
}

// focusedRow is the element id of the list entry holding keyboard
// focus, or "".
func focusedRow() string {
	if !app.IsClient {
		return ""
	}
	a := app.Window().Get("document").Get("activeElement")
	if !a.Truthy() || !a.Get("classList").Call("contains", "fb-queue-item").Bool() {
		return ""
	}
	return a.Get("id").String()
}

// afterUpdate runs f once the page has updated. Deferred on the widget,
// not on ctx: the element whose handler asked may have left the page by
// then, and go-app drops what is deferred on an element no longer mounted.
func (w *widget) afterUpdate(ctx app.Context, f func(app.Context)) {
	ctx.Dispatcher().Dispatch(app.Dispatch{Mode: app.Defer, Source: w, Function: f})
}

// dismissKey reports whether e is an Escape that dismisses a request:
// pressed in one of its controls, not on its title (id title), where
// the widget put focus. A second Escape, meant for the request just
// dismissed, must not dismiss the next one unread.
func dismissKey(e app.Event, title string) bool {
	return e.Get("key").String() == "Escape" && e.Get("target").Get("id").String() != title
}
