package client

import (
	"syscall/js"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// pageSocket is the global web/connect.js leaves for the widget: the
// connection it opened while the wasm loaded, with the URL, subprotocol
// and hello it used. null once taken or dropped, or when the widget
// started first.
const pageSocket = "formbridgeEarly"

// takePageSocket makes the next WebSocket the browser is asked for the
// page's early connection, when that one is to url, said hello and has
// not ended, and reports so (greeted), with when its first frame came
// (heard; zero if none has yet). Any other early connection is closed;
// when it ended with the bridge refusing the token, refused says so, and
// there is no point in dialing again.
func takePageSocket(url string, hello []byte) (greeted bool, heard time.Time, refused error) {
	early := js.Global().Get(pageSocket)
	if early.Type() != js.TypeObject {
		// None, or connect.js has not run yet: keep it out for good.
		js.Global().Set(pageSocket, js.Null())
		return false, heard, nil
	}
	if early.Get("url").String() != url || early.Get("subprotocol").String() != wire.Subprotocol ||
		early.Get("hello").String() != string(hello) {
		early.Call("drop")
		return false, heard, nil
	}
	if ms := early.Get("heardAt"); ms.Type() == js.TypeNumber && ms.Float() > 0 {
		heard = time.UnixMilli(int64(ms.Float()))
	}
	ended := early.Call("take")
	if ended.IsNull() {
		return true, heard, nil
	}
	for i := range ended.Length() {
		if err := helloRefusal([]byte(ended.Index(i).String())); err != nil {
			return false, heard, err
		}
	}
	return false, heard, nil
}

// dropPageSocket closes the page's early connection, if any.
func dropPageSocket() {
	if early := js.Global().Get(pageSocket); early.Type() == js.TypeObject {
		early.Call("drop")
		return
	}
	js.Global().Set(pageSocket, js.Null())
}
