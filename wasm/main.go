// Command wasm is the widget's browser program, built with
// GOOS=js GOARCH=wasm into web/app.wasm. It lives apart from the server's
// main so no server code (and no net/http client) is linked into what
// every person's browser downloads.
package main

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"github.com/formbridge/formbridge/app/ui"
)

func main() {
	ui.Register()
	// On the host (go vet, go test) this returns at once: the same routes
	// are served by server/site, which prerenders them.
	app.RunWhenOnBrowser()
}
