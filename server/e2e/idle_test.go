package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// An approver's tab is left open for a working week, mostly with nothing
// to do: these tests look at what it costs then.

// countTimers has the page count the timers it sets: Go in the browser
// sets one each time it goes to sleep with a timer pending, so the count
// is how often the page wakes the CPU.
const countTimers = `(() => {
	window.__fbTimers = 0;
	const setTimeout = window.setTimeout;
	window.setTimeout = function (...a) { window.__fbTimers++; return setTimeout.apply(this, a); };
})()`

// pageWork reports, over d, how many times a second the page set a timer
// and how many milliseconds a second its main thread was busy.
func pageWork(t *testing.T, ctx context.Context, d time.Duration) (timers, busyMS float64) {
	t.Helper()
	read := func() (int, float64) {
		m, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		busy := 0.0
		for _, x := range m.Metrics {
			if x.Name == "TaskDuration" {
				busy = x.Value
			}
		}
		return eval[int](t, ctx, `window.__fbTimers`), busy
	}
	n0, b0 := read()
	time.Sleep(d)
	n1, b1 := read()
	return float64(n1-n0) / d.Seconds(), (b1 - b0) * 1000 / d.Seconds()
}

// TestIdlePageSleeps leaves the page open with nothing to answer, then
// with one request waiting that closes in no hurry: a laptop on battery
// keeps such a tab all day. Nothing on screen changes for a minute at a
// time ("just now", then "1 minute ago"), so the page has no reason to
// wake the CPU more than about once a second. It woke 13 times a second
// (the clock's tick each second restarted go-app's frame loop, which
// then slowed down over six more frames), 4.5 ms of work a second.
func TestIdlePageSleeps(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, countTimers)
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	openWidget(t, ctx, b)
	time.Sleep(5 * time.Second) // the warm-up (warmup.go) is over
	const window = 12 * time.Second
	timers, busy := pageWork(t, ctx, window)
	t.Logf("nothing waiting: %.1f timers/s, %.2f ms/s busy", timers, busy)
	if timers > 2 {
		t.Errorf("with nothing waiting the page wakes %.1f times a second; want at most 2", timers)
	}
	b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	time.Sleep(2 * time.Second)
	timers, busy = pageWork(t, ctx, window)
	t.Logf("one request waiting: %.1f timers/s, %.2f ms/s busy", timers, busy)
	if timers > 2 {
		t.Errorf("with one request waiting the page wakes %.1f times a second; want at most 2", timers)
	}
}
