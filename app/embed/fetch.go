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
	var onResponse, onText, onError app.Func
	status := 0
	finish := func(text string) {
		ctx.Dispatch(func(ctx app.Context) { done(ctx, status, text) })
		onResponse.Release()
		onText.Release()
		onError.Release()
	}
	onText = app.FuncOf(func(this app.Value, args []app.Value) any {
		finish(args[0].String())
		return nil
	})
	onError = app.FuncOf(func(this app.Value, args []app.Value) any {
		status = 0
		finish("")
		return nil
	})
	onResponse = app.FuncOf(func(this app.Value, args []app.Value) any {
		status = args[0].Get("status").Int()
		args[0].Call("text").Call("then", onText, onError)
		return nil
	})
	app.Window().Call("fetch", url, init).Call("then", onResponse, onError)
}

// settle waits for the promise p, reads what it gives with read (0 and
// "" when p is rejected), and hands those to done on the UI goroutine.
func settle(ctx app.Context, p app.Value, read func(v app.Value) (status int, text string), done func(ctx app.Context, status int, text string)) {
	var onValue, onError app.Func
	finish := func(status int, text string) {
		ctx.Dispatch(func(ctx app.Context) { done(ctx, status, text) })
		onValue.Release()
		onError.Release()
	}
	onValue = app.FuncOf(func(this app.Value, args []app.Value) any {
		finish(read(args[0]))
		return nil
	})
	onError = app.FuncOf(func(this app.Value, args []app.Value) any {
		finish(0, "")
		return nil
	})
	p.Call("then", onValue, onError)
}
