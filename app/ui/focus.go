package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// embedded is set when the page is a host's iframe (embed.js): there is
// one widget per page, and it is embedded or not for the page's life.
var embedded bool

// mayTakeFocus reports whether a newly shown request may move keyboard
// focus at all. Embedded, while the frame does not have focus (the
// person is typing in the host's chat), it may not: focusing inside the
// frame would take the keyboard from the host page, and a Space could
// tick "Yes, delete" in a form nobody has read and an Enter send it. The
// live region announces the request, and the host may call focus(). A
// page of its own in a background tab takes no keys from anyone: focus
// there is where the person finds it on coming back.
func mayTakeFocus() bool {
	return app.IsClient && (!embedded || app.Window().Get("document").Call("hasFocus").Bool())
}
