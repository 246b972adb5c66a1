package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// A load's time is mostly the engine's own work, which the page's marks
// cannot see: V8 compiles wasm lazily, each function when it is first
// called, on the page's thread, and recompiles the hot ones with its
// optimizing tier on other threads. These traced loads say how much of
// that each page costs. They run after the timed ones and are not in
// their figures: tracing slows a load down.

// traceCategories are the trace categories v8Work reads.
var traceCategories = []string{"v8.wasm", "devtools.timeline", "toplevel"}

// v8Work is what the engine did during one traced load.
type v8Work struct {
	lazy     int     // wasm functions compiled when first called
	lazyMS   float64 // the page's thread compiling them
	tierMS   float64 // optimizing compiles on other threads
	layoutMS float64 // style and layout on the page's thread
	busyMS   float64 // the page's thread running tasks

	firstCalls []firstCall // the functions compiled when first called, in order
}

// firstCall is one function V8 compiled when the page first called it.
type firstCall struct {
	fn int     // its index in the module
	ms float64 // the page's thread compiling it
}

type traceEvent struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Dur  float64         `json:"dur"` // µs
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// tracedLoad is load with Chromium's tracing on for its whole length.
func (b *browser) tracedLoad(url string) (v8Work, error) {
	var (
		mu     sync.Mutex
		events []traceEvent
	)
	complete := make(chan struct{})
	lctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	chromedp.Listen(lctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			defer mu.Unlock()
			for _, v := range e.Value {
				var te traceEvent
				if json.Unmarshal(v, &te) == nil {
					events = append(events, te)
				}
			}
		case *tracing.EventTracingComplete:
			close(complete)
		}
	})
	if _, err := chromedp.Call(b.ctx, tracing.Start, tracing.StartParams{
		TransferMode: tracing.StartTransferModeReportEvents,
		TraceConfig:  &tracing.TraceConfig{IncludedCategories: traceCategories},
	}); err != nil {
		return v8Work{}, fmt.Errorf("starting a trace: %w", err)
	}
	_, _, loadErr := b.load(url)
	if _, err := chromedp.Call(b.ctx, tracing.End, cdp.Empty{}); err != nil {
		return v8Work{}, fmt.Errorf("ending a trace: %w", err)
	}
	select {
	case <-complete:
	case <-time.After(loadTimeout):
		return v8Work{}, fmt.Errorf("the trace did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	return summarizeTrace(events), loadErr
}

// summarizeTrace adds up the events v8Work counts. The page's thread is
// each renderer's main thread, named in the trace's metadata.
func summarizeTrace(events []traceEvent) v8Work {
	type thread struct{ pid, tid int }
	main := map[thread]bool{}
	for _, e := range events {
		if e.Ph == "M" && e.Name == "thread_name" {
			var a struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(e.Args, &a) == nil && a.Name == "CrRendererMain" {
				main[thread{e.Pid, e.Tid}] = true
			}
		}
	}
	var w v8Work
	for _, e := range events {
		if e.Ph != "X" {
			continue
		}
		ms, onMain := e.Dur/1000, main[thread{e.Pid, e.Tid}]
		switch {
		case e.Name == "wasm.TopTierCompilation" && !onMain:
			w.tierMS += ms
		case !onMain:
		case e.Name == "wasm.CompileLazy":
			w.lazy++
			w.lazyMS += ms
			var a struct {
				Fn *int `json:"func_index"`
			}
			if json.Unmarshal(e.Args, &a) == nil && a.Fn != nil {
				w.firstCalls = append(w.firstCalls, firstCall{*a.Fn, ms})
			}
		case e.Name == "Layout" || e.Name == "UpdateLayoutTree":
			w.layoutMS += ms
		case e.Name == "ThreadControllerImpl::RunTask":
			w.busyMS += ms
		}
	}
	return w
}

// wasmCacheEntries counts the compiled wasm Chromium keeps in the
// profile's code cache (its index files aside).
func (b *browser) wasmCacheEntries() int {
	entries, _ := os.ReadDir(filepath.Join(b.profile, "Default", "Code Cache", "wasm"))
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name() != "index" {
			n++
		}
	}
	return n
}

// benchEngineWork traces one cold and one warm load of each page, on a
// fresh profile, with an elicitation pending for the widget again, and
// reports what the engine did in each.
func benchEngineWork(ctx context.Context, s *section, exe string, bw *bridge, targets []loadTarget, buildDir string) error {
	defer keepPending(ctx, bw)()
	var rows [][]string
	var cache []string
	warm := map[string]v8Work{}
	for _, t := range targets {
		b, err := newBrowser(ctx, exe, t.probe)
		if err != nil {
			return err
		}
		for _, kind := range []string{"cold", "warm"} {
			w, err := b.tracedLoad(t.url)
			if err != nil {
				b.cancel()
				return fmt.Errorf("%s, traced %s load: %w", t.name, kind, err)
			}
			rows = append(rows, []string{kind, t.name, fmt.Sprint(w.lazy), fmtMS(w.lazyMS), fmtMS(w.tierMS), fmtMS(w.layoutMS), fmtMS(w.busyMS)})
			if kind == "warm" {
				warm[t.name] = w
			}
		}
		cache = append(cache, fmt.Sprintf("%s %d", t.name, b.wasmCacheEntries()))
		b.cancel()
	}
	s.printf("What the browser's engine did, from one more cold and one more warm load of each page with Chromium's tracing on (not in the figures above: tracing slows a load). V8 compiles wasm lazily: each function the page runs is compiled when first called, on the page's own thread; the hot ones are compiled again by its optimizing tier on other threads, which on this %d-core machine compete with the page's thread.\n\n", runtime.NumCPU())
	s.table([]string{"load", "page", "functions compiled on first call", "compiling them (page's thread)", "optimizing compiles (other threads)", "style and layout", "page's thread busy"}, rows)
	s.printf("Compiled wasm in the profile's code cache after the two loads (a warm load that found some would compile less): %s.\n\n", strings.Join(cache, "; "))
	printOnlyCompiled(s, buildDir, warm["widget"], warm["hello"])
	return nil
}

// packageCompiles is what one package's functions cost a load in first-call
// compiles.
type packageCompiles struct {
	pkg   string
	funcs int
	bytes int     // their bodies
	ms    float64 // the page's thread compiling them
}

// add counts q's functions in p.
func (p *packageCompiles) add(q packageCompiles) {
	p.funcs += q.funcs
	p.bytes += q.bytes
	p.ms += q.ms
}

// onlyCompiledBy adds up, by package, the functions load compiled on
// first call that other (a load of another build) never compiled, told
// apart by name: the widget's extra compiling over the hello world's.
// Largest first, by code.
func onlyCompiledBy(load, other v8Work, loadFns, otherFns *wasmFunctions) []packageCompiles {
	otherNames := map[string]bool{}
	for _, c := range other.firstCalls {
		if name := otherFns.name(c.fn); name != "" {
			otherNames[name] = true
		}
	}
	counted := map[int]bool{} // V8 compiles a function once; count it once if not
	byPkg := map[string]*packageCompiles{}
	for _, c := range load.firstCalls {
		name := loadFns.name(c.fn)
		if otherNames[name] || counted[c.fn] {
			continue
		}
		counted[c.fn] = true
		pkg := symbolPackage(name)
		if name == "" {
			pkg = "(unnamed)"
		}
		p := byPkg[pkg]
		if p == nil {
			p = &packageCompiles{pkg: pkg}
			byPkg[pkg] = p
		}
		p.add(packageCompiles{funcs: 1, bytes: loadFns.size(c.fn), ms: c.ms})
	}
	out := make([]packageCompiles, 0, len(byPkg))
	for _, p := range byPkg {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].bytes != out[j].bytes {
			return out[i].bytes > out[j].bytes
		}
		return out[i].pkg < out[j].pkg
	})
	return out
}

// printOnlyCompiled reports onlyCompiledBy for the widget's traced warm
// load against the hello world's: the functions behind most of the warm
// gap, named from the unstripped builds the size section made of the
// same code, once their code is seen to match the builds the pages ran.
func printOnlyCompiled(s *section, dir string, widget, hello v8Work) {
	fns := func(name string) (*wasmFunctions, error) {
		f, err := named(filepath.Join(dir, name+".names.wasm"))
		if err != nil {
			return nil, err
		}
		served, err := readWasmFunctions(filepath.Join(dir, name, "app.wasm"))
		if err == nil && !sameCode(f, served) {
			err = fmt.Errorf("%s.names.wasm does not define the same functions as the %s page's wasm", name, name)
		}
		return f, err
	}
	wf, err1 := fns("widget")
	hf, err2 := fns("hello")
	if err := errors.Join(err1, err2); err != nil {
		s.printf("The functions only the widget compiled could not be named: %v.\n\n", err)
		return
	}
	pkgs := onlyCompiledBy(widget, hello, wf, hf)
	var all packageCompiles
	for _, p := range pkgs {
		all.add(p)
	}
	const shown = 12
	var rows [][]string
	for i, p := range pkgs {
		if i == shown {
			rest := packageCompiles{pkg: fmt.Sprintf("%d other packages", len(pkgs)-shown)}
			for _, q := range pkgs[shown:] {
				rest.add(q)
			}
			rows = append(rows, []string{rest.pkg, fmt.Sprint(rest.funcs), kb(int64(rest.bytes)), fmtMS(rest.ms)})
			break
		}
		rows = append(rows, []string{"`" + p.pkg + "`", fmt.Sprint(p.funcs), kb(int64(p.bytes)), fmtMS(p.ms)})
	}
	s.printf("Functions the widget's traced warm load compiled on first call that the hello world's did not (named from unstripped builds of the same code): %d functions, %s of code, %s of the page's thread compiling them (traced), by package, largest first. The trace ends once the first field is focused, so nearly all of this is work the widget does before a person can type.\n\n", all.funcs, kb(int64(all.bytes)), fmtMS(all.ms))
	s.table([]string{"package (as the wasm linker names it)", "functions", "code", "compiling them"}, rows)
}
