package main

import (
	"context"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/chromium"
	"github.com/formbridge/formbridge/server/site"
)

// Page-load target of issue 6: the widget's page within this many times
// the hello world's mount, cold and warm.
const loadBudget = 1.25

// Bounds of the browser runs.
const (
	coldLoads      = 2                // fresh browsers per page in each run: loads are noisy
	warmLoads      = 2                // cached loads after each cold one
	browserTimeout = 60 * time.Second // one browser's whole life
	loadTimeout    = 30 * time.Second
)

// browser is one Chromium process on its own profile folder.
type browser struct {
	ctx     context.Context
	cancel  func()
	profile string
}

// newBrowser starts Chromium; probe, when set, runs in every page it
// loads before the page's own scripts.
func newBrowser(ctx context.Context, exe, probe string) (*browser, error) {
	dir, err := chromium.NewDir()
	if err != nil {
		return nil, err
	}
	ctx, cancelTime := context.WithTimeout(ctx, browserTimeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, chromium.Options(exe, dir)...)
	bctx, cancelTab := chromedp.NewContext(actx)
	b := &browser{ctx: bctx, profile: filepath.Join(dir, "profile"), cancel: func() {
		cancelTab()
		cancelAlloc()
		cancelTime()
		os.RemoveAll(dir)
	}}
	if err := chromedp.Do(bctx); err != nil {
		b.cancel()
		return nil, fmt.Errorf("starting Chromium: %w", err)
	}
	if probe != "" {
		if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: marksProbe + probe}); err != nil {
			b.cancel()
			return nil, err
		}
	}
	return b, nil
}

// marksProbe records, in window.__fbMarks, when the page reached each
// step of starting (the page's clock, ms since navigation started), to
// say where a load's time goes.
const marksProbe = `(() => {
  const m = window.__fbMarks = {};
  const mark = (k) => { if (!(k in m)) m[k] = performance.now(); };
  const is = WebAssembly.instantiateStreaming;
  if (is) WebAssembly.instantiateStreaming = function (...a) {
    mark("1 wasm handed to the loader");
    return is.apply(this, a).then((r) => { mark("2 wasm compiled"); return r; });
  };
  new MutationObserver((_, o) => {
    if ("2 wasm compiled" in m) mark("3 page changed by the wasm");
    if (document.querySelector("form[data-elicitation-id]")) { mark("8 form in the page"); o.disconnect(); }
  }).observe(document, {childList: true, subtree: true, attributes: true});
  const WS = window.WebSocket;
  const Wrapped = function (...a) {
    mark("4 WebSocket created");
    const ws = new WS(...a);
    ws.addEventListener("open", () => mark("5 WebSocket open"));
    ws.addEventListener("message", (e) => {
      mark("6 first frame in");
      if (typeof e.data === "string" && e.data.includes('"elicitation/create"')) mark("7 request frame in");
    });
    return ws;
  };
  Wrapped.prototype = WS.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Wrapped[k] = WS[k];
  window.WebSocket = Wrapped;
})();`

// navigationMarks adds the page's own Navigation Timing to the probe's
// marks: when the bridge answered, when the page was parsed, and when
// app.wasm's download started and its last byte arrived (compiling
// overlaps the download).
const navigationMarks = `(() => {
  const m = Object.assign({}, window.__fbMarks);
  const n = performance.getEntriesByType("navigation")[0];
  if (n) {
    m["0a page response started"] = n.responseStart;
    m["0b page response ended"] = n.responseEnd;
    m["0c page parsed"] = n.domContentLoadedEventStart;
  }
  const w = performance.getEntriesByType("resource").find((e) => /app[.]wasm/.test(e.name));
  if (w) {
    // Started by the page's head (its preload), before the loader runs.
    m["1a wasm download started"] = w.startTime;
    m["1b wasm downloaded"] = w.responseEnd;
  }
  return m;
})()`

// Probes, installed before any of the page's own scripts, record in
// window.__fbT the page's clock (milliseconds since navigation started)
// when the page is ready for a person.
const (
	// The widget: focus lands in the first field of a shown form. The
	// focus method is wrapped rather than focusin awaited: a headless
	// window without input focus moves document.activeElement but fires
	// no focus events.
	widgetProbe = `(() => {
  const focus = HTMLElement.prototype.focus;
  HTMLElement.prototype.focus = function (...args) {
    focus.apply(this, args);
    if (!window.__fbT && document.activeElement === this && this.closest("form[data-elicitation-id] [data-field]")) window.__fbT = performance.now();
  };
})();`
	// The floor: the hello world's heading is mounted by its wasm (the
	// page served before it carries no such element).
	helloProbe = `new MutationObserver((_, o) => {
  if (!window.__fbT && document.querySelector("[data-hello]")) { window.__fbT = performance.now(); o.disconnect(); }
}).observe(document, {childList: true, subtree: true});`
)

// load navigates to url (from a blank page, so it is a full navigation)
// and returns the time from the navigation's start to the probe's mark,
// in ms. The mark is read as wall-clock time (the page's timeOrigin plus
// its clock), so a reload the page does on its own (a service worker
// taking over, say) counts in the time instead of restarting it.
func (b *browser) load(url string) (float64, map[string]float64, error) {
	ctx, cancel := context.WithTimeout(b.ctx, loadTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return 0, nil, err
	}
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return 0, nil, err
	}
	var err error
	for ctx.Err() == nil {
		var at float64
		at, err = chromedp.Run(ctx, chromedp.Poll[float64]("window.__fbT && performance.timeOrigin + window.__fbT",
			chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(loadTimeout)))
		if err == nil {
			marks, _ := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](navigationMarks))
			return at - float64(start.UnixNano())/1e6, marks, nil
		}
		if !strings.Contains(err.Error(), "context") {
			break // not the page replacing its document: give up
		}
	}
	// Say what the page showed instead, for whoever reads the error.
	dctx, dcancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer dcancel()
	state, _ := chromedp.Run(dctx, chromedp.Evaluate[string](`(document.activeElement ? document.activeElement.outerHTML.slice(0, 200) : "no focus") + " | " + document.body.outerHTML.slice(0, 600)`))
	return 0, nil, fmt.Errorf("%w; the page: %s", err, state)
}

// webFolder makes a web folder for one build: the repository's web files
// (stylesheet, icons, scripts) with that build's app.wasm and its
// compressed copies, which are already in dir. The floors' folders leave
// out warmup.js, storage.js and connect.js: they are the widget's own
// work (a sample of the widget's form laid out; storage for when the
// browser blocks it; its connection opened while the wasm loads), and a
// folder without them is served without them.
func webFolder(repoWeb, dir string, widget bool) error {
	return filepath.WalkDir(repoWeb, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoWeb, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if strings.HasPrefix(d.Name(), "app.wasm") || strings.HasSuffix(d.Name(), ".go") || (!widget && (d.Name() == site.WarmupScript || d.Name() == site.StorageScript || d.Name() == site.ConnectScript)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
}

// loadTarget is a page whose load is timed: probe marks it ready.
type loadTarget struct {
	name, url, probe string
}

func benchBrowser(ctx context.Context, c *config, r *report) error {
	exe, ok := chromium.Path()
	if !ok {
		return fmt.Errorf("Chromium not found (install Debian's chromium, or set FORMBRIDGE_CHROMIUM)")
	}
	dir, err := buildWasm(ctx, c)
	if err != nil {
		return err
	}
	for _, name := range []string{"widget", "hello", "hello-ws"} {
		if err := webFolder(filepath.Join(c.repo, "web"), filepath.Join(dir, name), name == "widget"); err != nil {
			return err
		}
	}
	bw, err := startBridge(hub.Options{MaxPending: 1 << 12, RatePerMinute: 1 << 30, Timeout: 10 * time.Minute}, filepath.Join(dir, "widget"))
	if err != nil {
		return err
	}
	defer bw.close()
	bh, err := startBridge(hub.Options{}, filepath.Join(dir, "hello"))
	if err != nil {
		return err
	}
	defer bh.close()
	loads, targets, err := benchLoads(ctx, c, r, exe, bw, bh)
	if err != nil {
		return err
	}
	fp, err := startFloorPage(filepath.Join(dir, "hello-ws"))
	if err != nil {
		return err
	}
	defer fp.close()
	if err := benchOpenPage(ctx, c, r, exe, bw, fp.target()); err != nil {
		return err
	}
	if err := benchNetworkLoads(ctx, c, r, exe, bw, bh, filepath.Join(dir, "widget")); err != nil {
		return err
	}
	// Last, so its browsers cannot weigh on the timed runs.
	return benchEngineWork(ctx, loads, exe, bw, targets, dir)
}

// keepPending leaves the bench's form pending on bw's default channel,
// for the widget's page to show when it loads, until the returned func
// is called.
func keepPending(ctx context.Context, bw *bridge) (withdraw func()) {
	pctx, cancel := context.WithCancel(ctx)
	go bw.Hub.Elicit(pctx, hub.DefaultChannel, benchRequester, []byte(benchForm), nil)
	return cancel
}

// benchLoads measures page loads: a cold one on a fresh profile, then
// warm (cached) ones in the same browser, for the widget with one
// elicitation already pending and for the hello world. It returns its
// report section and the pages, for benchEngineWork.
func benchLoads(ctx context.Context, c *config, r *report, exe string, bw, bh *bridge) (*section, []loadTarget, error) {
	defer keepPending(ctx, bw)()

	targets := []loadTarget{
		{"widget", bw.URL + "/#token=" + bw.Hub.DefaultToken(), widgetProbe},
		{"hello", bh.URL + "/", helloProbe},
	}
	lt, err := timeLoads(ctx, exe, targets, c.runs, coldLoads)
	if err != nil {
		return nil, nil, err
	}
	s := r.section("Page load in headless Chromium")
	s.printf("From the navigation being sent to: the first field of an already-pending elicitation focused (widget), or the hello world's heading mounted by its wasm (floor); the mark is the page's wall clock (`performance.timeOrigin + performance.now()`), compared with Go's. ")
	s.printf("Both pages are served the same way (server/site: prerendered page, precompressed wasm whose download the page's head starts, immutable versioned assets) from loopback; the widget's also runs its own scripts, which the hello world has no use for: web/storage.js (a stand-in for storage the browser blocks, before go-app's loader) and web/connect.js (the widget's connection opened, and its hello said, while the wasm loads), both inline in the page, and web/warmup.js (a hidden sample form laid out while the wasm loads). ")
	s.printf("Cold: a new browser on a fresh profile, %d loads of each page (%d runs × %d, the pages alternating); warm: %d more loads in the same browser after each cold one (wasm from the HTTP cache). Each run's own ratio, on the run-by-run rows, shows how far one run's figure strays on this machine.\n\n", c.runs*coldLoads, c.runs, coldLoads, warmLoads)
	var rows [][]string
	for kind, byRun := range lt.byKind() {
		kindRows, w, h := loadRows(kind, byRun)
		rows = append(rows, kindRows...)
		r.target("page load, "+kind, fmt.Sprintf("≤ %.2f × hello world mounting", loadBudget),
			fmt.Sprintf("%s vs %s = %s×", fmtMS(w.median()), fmtMS(h.median()), fmtRatio(w.median()/h.median())), w.median() <= loadBudget*h.median())
	}
	s.table([]string{"", "median", "p99", "loads"}, rows)

	s.printf("Where a load's time goes: the median time of each step, in ms from the navigation's start by the page's clock (the page's Navigation and Resource Timing, a wrapped `WebAssembly.instantiateStreaming` and `WebSocket`):\n\n")
	s.table([]string{"load", "page", "step", "median"}, lt.stepRows())
	return s, targets, nil
}

// loadTimes are timeLoads' samples, in ms: by run and then page, cold
// and warm, and each step's marks ("cold\x00widget\x00<mark>").
type loadTimes struct {
	cold, warm []map[string]samples
	steps      map[string]samples
}

// byKind gives the cold samples, then the warm ones, by run.
func (lt loadTimes) byKind() iter.Seq2[string, []map[string]samples] {
	return func(yield func(string, []map[string]samples) bool) {
		_ = yield("cold", lt.cold) && yield("warm", lt.warm)
	}
}

// loadRows are the table rows of one kind of load (cold, warm): the
// widget's and the floor's median and p99, their ratio, and each run's
// own ratio. It returns the samples pooled over the runs too.
func loadRows(kind string, byRun []map[string]samples) (rows [][]string, w, h samples) {
	var perRun []string
	for _, m := range byRun {
		w, h = append(w, m["widget"]...), append(h, m["hello"]...)
		perRun = append(perRun, fmtRatio(m["widget"].median()/m["hello"].median()))
	}
	return [][]string{
		{kind + ": widget, first field focused", fmtMS(w.median()), fmtMS(w.p99()), fmt.Sprint(len(w))},
		{kind + ": floor, hello world mounted", fmtMS(h.median()), fmtMS(h.p99()), fmt.Sprint(len(h))},
		{kind + ": ratio", fmtRatio(w.median() / h.median()), fmtRatio(w.p99() / h.p99()), ""},
		// Nearest rank: of a run's two loads, its median is the faster.
		{kind + ": ratio of each run's medians (nearest rank), run by run", strings.Join(perRun, ", "), "", ""},
	}, w, h
}

// stepRows are the median time of each step marked, by load and page.
func (lt loadTimes) stepRows() [][]string {
	var rows [][]string
	for _, k := range slices.Sorted(maps.Keys(lt.steps)) {
		parts := strings.SplitN(k, "\x00", 3)
		rows = append(rows, []string{parts[0], parts[1], strings.SplitN(parts[2], " ", 2)[1], fmtMS(lt.steps[k].median())})
	}
	return rows
}

// timeLoads loads each target cold, in a new browser, then warmLoads
// times more in it (from its cache), coldPerRun times in each of runs;
// the targets alternate which goes first, so neither always meets a
// busier machine.
func timeLoads(ctx context.Context, exe string, targets []loadTarget, runs, coldPerRun int) (loadTimes, error) {
	lt := loadTimes{cold: make([]map[string]samples, runs), warm: make([]map[string]samples, runs), steps: map[string]samples{}}
	for i := range runs {
		lt.cold[i], lt.warm[i] = map[string]samples{}, map[string]samples{}
	}
	addMarks := func(kind, name string, marks map[string]float64) {
		for k, v := range marks {
			key := kind + "\x00" + name + "\x00" + k
			lt.steps[key] = append(lt.steps[key], v)
		}
	}
	for run := range runs * coldPerRun {
		cold, warm := lt.cold[run/coldPerRun], lt.warm[run/coldPerRun]
		for i := range targets {
			t := targets[(i+run)%len(targets)]
			b, err := newBrowser(ctx, exe, t.probe)
			if err != nil {
				return lt, err
			}
			v, marks, err := b.load(t.url)
			if err != nil {
				b.cancel()
				return lt, fmt.Errorf("%s, cold load: %w", t.name, err)
			}
			cold[t.name] = append(cold[t.name], v)
			addMarks("cold", t.name, marks)
			for range warmLoads {
				v, marks, err := b.load(t.url)
				if err != nil {
					b.cancel()
					return lt, fmt.Errorf("%s, warm load: %w", t.name, err)
				}
				warm[t.name] = append(warm[t.name], v)
				addMarks("warm", t.name, marks)
			}
			b.cancel()
		}
	}
	return lt, nil
}
