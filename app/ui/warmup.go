package ui

import (
	"encoding/json"
	"runtime"
	"time"

	"github.com/formbridge/formbridge/app/client"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// The first requests a page shows are its slowest. V8 compiles each wasm
// function when it is first called, and runs it unoptimized until it
// has run often enough to be optimized: with the page open (Chromium 156
// on a 2-core machine), the first request took 60 to 130 ms from the
// bridge to the screen, the next five 20 to 60 ms, every later one about
// 5 ms; after the warm-up, the first took 8 to 10 ms. So once the
// widget has been online for a moment with nothing to show, it takes a
// hidden sample request through a real one's steps (decode its params,
// read its form, check the draft, mount the card, put the next request
// in it, check and encode its answer, take it down) warmRounds times,
// before anyone waits on one. A step takes 10 to 200 ms of the page's
// thread (the first the longest), which a request arriving then
// waits for; so a round starts only once the page has been quiet for
// warmIdle (no request shown, answered or gone), and a server's next
// question right after an answer never waits behind one.

// warmSample is the params of an elicitation/create as a bridge sends
// them, with a field of each kind; the server's own schema is left out,
// as the widget renders from the bridge's reading of it
// (TestWarmSampleIsCurrent).
const warmSample = `{"_meta":{"formbridge/request":{` +
	`"requester":{"name":"sample"},"createdAt":"1970-01-01T00:00:00Z","expiresAt":"1970-01-01T00:00:00Z","form":{"fields":[` +
	`{"key":"name","kind":"string","title":"Name","label":"Name","description":"Aa","required":true,"default":"Aa","maxLength":80},` +
	`{"key":"note","kind":"string","title":"Note","label":"Note"},` +
	`{"key":"email","kind":"string","title":"Email","label":"Email","format":"email"},` +
	`{"key":"day","kind":"string","title":"Day","label":"Day","format":"date"},` +
	`{"key":"count","kind":"integer","title":"Count","label":"Count","minimum":1,"maximum":9},` +
	`{"key":"amount","kind":"number","title":"Amount","label":"Amount"},` +
	`{"key":"ok","kind":"boolean","title":"OK","label":"OK","required":true,"default":true},` +
	`{"key":"size","kind":"select","title":"Size","label":"Size","options":[{"value":"s","title":"s"},{"value":"m","title":"m"},{"value":"l","title":"l"}]},` +
	`{"key":"city","kind":"select","title":"City","label":"City","options":[{"value":"a","title":"A"},{"value":"b","title":"B"},{"value":"c","title":"C"},{"value":"d","title":"D"},{"value":"e","title":"E"},{"value":"f","title":"F"}]},` +
	`{"key":"tags","kind":"multiselect","title":"Tags","label":"Tags","options":[{"value":"a","title":"a"},{"value":"b","title":"b"},{"value":"c","title":"c"}]}` +
	`]}}},"message":"Sample"}`

// warmRounds is how many times the sample is mounted and taken down. V8
// had optimized the form's code after about six real requests, but with
// 8 rounds it was still optimizing some of it (go-app's update, the
// form's Render) during a page's first requests, on the same 2 cores.
// With 20, and the answer encoded, the open page's p99 over 1,200
// requests went from 17.0 to 13.2 ms (sent to form) and from 34.6 to
// 33.2 ms (call to click to result), and the requests over 10 ms (form)
// and 25 ms (click) from 56 to 39 and 35 to 22 (docs/TEAM.md).
const warmRounds = 20

// warmIdle is how long the page has been quiet before a round starts;
// warmGap is the pause between steps, which leaves the page free for
// anything else.
const (
	warmIdle = time.Second
	warmGap  = 25 * time.Millisecond
)

// warmup is how far the widget is through its warm-up.
type warmup struct {
	running bool
	rounds  int       // samples mounted so far
	sample  *item     // the sample mounted, hidden; nil between rounds
	swapped bool      // the round's second sample has replaced its first
	encoded int       // bytes of the samples' answers encoded, all rounds
	done    bool      // every round ran, and the collection after them
	busy    time.Time // when a request last came or went (quietFor)
}

// startWarmup begins the warm-up, or goes on with it, when the widget is
// online and has nothing to show: a request shown, or the connection
// lost, pauses it.
func (w *widget) startWarmup(ctx app.Context) {
	if w.warm.running || w.warm.done || !w.synced || w.queue.len() > 0 {
		return
	}
	w.warm.running = true
	w.warmLater(ctx, warmIdle)
}

// requestsMoved notes that a request came or went, which puts the
// warm-up's next round off until the page has been quiet again.
func (w *widget) requestsMoved() { w.warm.busy = time.Now() }

// warmLater has warmStep run after d (in the browser: tests step by
// hand).
//
//go:noinline
func (w *widget) warmLater(ctx app.Context, d time.Duration) {
	if app.IsClient {
		after(ctx, d, w.warmStep)
	}
}

// warmStep mounts the sample, once the page has been quiet for warmIdle,
// puts a second sample in its place, or takes it down. A request to
// show, or a connection lost, pauses the warm-up until startWarmup.
func (w *widget) warmStep(ctx app.Context) {
	quiet := time.Since(w.warm.busy) >= warmIdle
	switch {
	case w.warm.sample != nil && !w.warm.swapped && quiet && w.queue.len() == 0:
		// The next request in the same card, as after an answer: go-app
		// updates the mounted form, code a first mount never runs.
		w.seq++
		w.warm.sample, w.warm.swapped = sampleItem(w.seq), true
	case w.warm.sample != nil:
		w.warm.encoded += len(warmAnswer(w.warm.sample))
		w.warm.sample, w.warm.swapped = nil, false
	case w.queue.len() > 0 || w.state != connOnline:
		w.warm.running = false
		return
	case !quiet:
		w.warmLater(ctx, warmIdle-time.Since(w.warm.busy))
		return
	case w.warm.rounds >= warmRounds:
		w.warm.running, w.warm.done = false, true
		collectOnce()
		return
	default:
		w.warm.rounds++
		w.seq++
		w.warm.sample = sampleItem(w.seq)
	}
	w.warmLater(ctx, warmGap)
}

// collectOnce runs the Go garbage collector once the warm-up is over. The
// page's first collection otherwise came in the middle of showing a
// request (about the 13th in a row): V8 compiled some 200 runtime
// functions for it on the page's thread then, 22 ms before the form
// appeared. Now that happens while the page is idle, and the warm-up's
// garbage goes with it.
func collectOnce() {
	if app.IsClient {
		runtime.GC()
	}
}

// sampleItem reads warmSample as the client and the widget read the
// params of a request from the bridge. It has no id, so its card carries
// none (nothing counting requests on the page sees it) and never moves
// focus: requestCard.prepare takes it for a request it has focused.
func sampleItem(seq int) *item {
	var p wire.ElicitParams
	if json.Unmarshal([]byte(warmSample), &p) != nil {
		return nil
	}
	meta, _ := p.RequestMeta()
	return newItem("", seq, p, meta, time.Now())
}

// warmAnswer takes the sample through what Send does before the socket:
// its draft checked into an answer, and the answer's frame encoded (and
// returned for tests; nothing sends it). A person's first Send otherwise
// compiled that code with them waiting.
func warmAnswer(it *item) []byte {
	content, ok := (&requestCard{Item: it}).check()
	if !ok {
		return nil
	}
	b, _ := client.AnswerFrame("sample", wire.ElicitResult{Action: wire.ActionAccept, Content: content})
	return b
}

// renderWarmup is the sample while it is mounted, in a hidden box: not
// drawn, not focusable, out of the accessibility tree. A script that
// clicks its buttons anyway sends nothing (noAnswer).
func (w *widget) renderWarmup() app.UI {
	if w.warm.sample == nil {
		return nil
	}
	return elem("div", "", &requestCard{Item: w.warm.sample, Answer: noAnswer{}}).Attr("hidden", true).Attr("inert", true)
}

// noAnswer is the sample's answerer: there is nobody to answer.
type noAnswer struct{}

func (noAnswer) answer(*item, wire.ElicitResult) {}
func (noAnswer) offline() bool                   { return false }
