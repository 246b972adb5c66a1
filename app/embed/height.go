package embed

import (
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// heightReporter tells the host how tall the widget's content is, so the
// iframe can be exactly that tall and never show a second scrollbar.
//
// The widget's root has min-height: 100vh, which inside an iframe is the
// iframe's own height: measuring the root (or the document) would only
// ever report the current height back, so the frame could grow but never
// shrink. The content's height is instead where its last child ends.
//
// measure runs from the observers' callbacks and, after a theme change,
// from the UI goroutine; Go in the browser runs one goroutine at a time
// and measure never yields, so they cannot interleave.
type heightReporter struct {
	report   func(px int)
	last     int
	callback app.Func
	mutation app.Value
	resize   app.Value
}

func startHeightReporter(report func(px int)) *heightReporter {
	r := &heightReporter{report: report}
	r.callback = app.FuncOf(func(this app.Value, args []app.Value) any {
		r.measure()
		return nil
	})
	win := app.Window()
	doc := win.Get("document")
	// Any change of the DOM may change the height (a request arrives, an
	// error appears under a field); a change of width reflows the text.
	r.mutation = win.Get("MutationObserver").New(r.callback)
	r.mutation.Call("observe", doc.Get("body"), map[string]any{
		"childList": true, "subtree": true, "characterData": true, "attributes": true,
	})
	if ro := win.Get("ResizeObserver"); ro.Truthy() {
		r.resize = ro.New(r.callback)
		r.resize.Call("observe", doc.Get("documentElement"))
	}
	r.measure()
	return r
}

// measure reports the height when it changed.
func (r *heightReporter) measure() {
	if r == nil {
		return
	}
	px := contentHeight()
	if px > 0 && px != r.last {
		r.last = px
		r.report(px)
	}
}

func (r *heightReporter) stop() {
	if r == nil {
		return
	}
	r.mutation.Call("disconnect")
	if r.resize != nil {
		r.resize.Call("disconnect")
	}
	r.callback.Release()
}

// contentHeight is the bottom of the widget root's last laid-out child
// plus the root's bottom padding, or of anything the page put after the
// root if lower, in CSS pixels from the document's top.
func contentHeight() int {
	win := app.Window()
	doc := win.Get("document")
	root := doc.Call("querySelector", ".fb-widget")
	if !root.Truthy() {
		return doc.Get("body").Get("scrollHeight").Int()
	}
	// Whole pixels, each rounded up by Math.ceil (the largest of them is
	// the largest bottom rounded up): Value.Float would keep go-app's
	// Float of every kind of value in the wasm, 10 KB for two reads.
	jsMath := win.Get("Math")
	bottom := 0
	children := root.Get("children")
	for i := 0; i < children.Length(); i++ {
		rect := children.Index(i).Call("getBoundingClientRect")
		bottom = max(bottom, jsMath.Call("ceil", rect.Get("bottom")).Int())
	}
	style := win.Call("getComputedStyle", root)
	pad := parsePx(style.Get("paddingBottom").String())
	border := parsePx(style.Get("borderBottomWidth").String())
	bottom += int(math.Ceil(pad + border))
	// What the page adds after the widget (the demo's panel) is content
	// too: a frame as tall as the widget alone would hide it.
	for el := root.Get("nextElementSibling"); el.Truthy(); el = el.Get("nextElementSibling") {
		bottom = max(bottom, jsMath.Call("ceil", el.Call("getBoundingClientRect").Get("bottom")).Int())
	}
	return bottom + jsMath.Call("ceil", win.Get("scrollY")).Int()
}

// parsePx reads "16px", what getComputedStyle gives for lengths.
func parsePx(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "px"), 64)
	if err != nil {
		return 0
	}
	return f
}
