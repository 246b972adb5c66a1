package embed

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// fetchText makes an HTTP request with the browser's fetch (not
// net/http, which would add a large client to the wasm), init being
// fetch's options, and hands the status and body to done on the UI
// goroutine. status is 0 when the request failed before an answer.
func fetchText(ctx app.Context, url string, init map[string]any, done func(ctx app.Context, status int, text string)) {
	if !app.IsClient {
		return
	}
	failed := func() { ctx.Dispatch(func(ctx app.Context) { done(ctx, 0, "") }) }
	then(app.Window().Call("fetch", url, init), func(response app.Value) {
		status := response.Get("status").Int()
		then(response.Call("text"), func(text app.Value) {
			ctx.Dispatch(func(ctx app.Context) { done(ctx, status, text.String()) })
		}, failed)
	}, failed)
}

// then calls fulfilled with what the promise p gives, or rejected, and
// releases both callbacks once either has run. Neither runs on the UI
// goroutine.
func then(p app.Value, fulfilled func(v app.Value), rejected func()) {
	var onValue, onError app.Func
	release := func() {
		onValue.Release()
		onError.Release()
	}
	onValue = app.FuncOf(func(this app.Value, args []app.Value) any {
		release()
		fulfilled(args[0])
		return nil
	})
	onError = app.FuncOf(func(this app.Value, args []app.Value) any {
		release()
		rejected()
		return nil
	})
	p.Call("then", onValue, onError)
}
