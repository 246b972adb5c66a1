package client

import "syscall/js"

// pageSocket is the global web/connect.js leaves for the widget: the
// connection it opened while the wasm loaded, with the URL and hello it
// used. null once taken or dropped, or when the widget started first.
const pageSocket = "formbridgeEarly"

// takePageSocket makes the next WebSocket the browser is asked for the
// page's early connection, when that one is to url, said hello and has
// not ended, and reports whether it did. Any other early connection is
// closed.
func takePageSocket(url string, hello []byte) bool {
	early := js.Global().Get(pageSocket)
	if early.Type() != js.TypeObject {
		// None, or connect.js has not run yet: keep it out for good.
		js.Global().Set(pageSocket, js.Null())
		return false
	}
	if early.Get("url").String() != url || early.Get("hello").String() != string(hello) {
		early.Call("drop")
		return false
	}
	// false when it has ended already; it is closed then.
	return early.Call("take").Bool()
}

// dropPageSocket closes the page's early connection, if any.
func dropPageSocket() {
	if early := js.Global().Get(pageSocket); early.Type() == js.TypeObject {
		early.Call("drop")
		return
	}
	js.Global().Set(pageSocket, js.Null())
}
