package client

import (
	"syscall/js"

	"github.com/formbridge/formbridge/app/wire"
)

// pageSocket is the global web/connect.js leaves for the widget: the
// connection it opened while the wasm loaded, with the URL, subprotocol
// and hello it used. null once taken or dropped, or when the widget
// started first.
const pageSocket = "formbridgeEarly"

// takePageSocket makes the next WebSocket the browser is asked for the
// page's early connection, when that one is to url, said hello and has
// not ended, and reports so (greeted). Any other early connection is
// closed; when it ended with the bridge refusing the token, refused
// says so, and there is no point in dialing again.
func takePageSocket(url string, hello []byte) (greeted bool, refused error) {
	early := js.Global().Get(pageSocket)
	if early.Type() != js.TypeObject {
		// None, or connect.js has not run yet: keep it out for good.
		js.Global().Set(pageSocket, js.Null())
		return false, nil
	}
	if early.Get("url").String() != url || early.Get("subprotocol").String() != wire.Subprotocol ||
		early.Get("hello").String() != string(hello) {
		early.Call("drop")
		return false, nil
	}
	ended := early.Call("take")
	if ended.IsNull() {
		return true, nil
	}
	for i := range ended.Length() {
		if err := helloRefusal([]byte(ended.Index(i).String())); err != nil {
			return false, err
		}
	}
	return false, nil
}

// dropPageSocket closes the page's early connection, if any.
func dropPageSocket() {
	if early := js.Global().Get(pageSocket); early.Type() == js.TypeObject {
		early.Call("drop")
		return
	}
	js.Global().Set(pageSocket, js.Null())
}
