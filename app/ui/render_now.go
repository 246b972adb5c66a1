package ui

import (
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// go-app renders only on a frame ticker, which slows down while the page
// is idle and, at the next dispatch, restarts a whole frame (8 ms) away:
// a request arriving on an open page would wait that long for nothing.
// renderNow has what is dispatched so far rendered at once instead, by
// the engine's Consume (the queued dispatches, then one frame), the only
// way in. Consume first waits for every ctx.Async to end, so the widget
// starts its long-lived goroutines with go, and waits with after rather
// than ctx.After (TestNoGoAppAsync checks).

// renderNow queues one flush behind what is dispatched so far; a burst of
// events (say, the pending requests after a reconnect) shares one.
func (w *widget) renderNow(ctx app.Context) {
	d, ok := ctx.Dispatcher().(app.ClientDispatcher)
	if !ok || !w.flushQueued.CompareAndSwap(false, true) {
		return
	}
	d.Dispatch(app.Dispatch{Mode: app.Next, Function: func(app.Context) {
		w.flushQueued.Store(false)
		d.Consume()
	}})
}

// after is ctx.After without go-app's Async, which renderNow would wait
// on: fn runs on the UI goroutine once d has passed.
func after(ctx app.Context, d time.Duration, fn func(app.Context)) {
	time.AfterFunc(d, func() { ctx.Dispatch(fn) })
}
