package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/formbridge/formbridge/server/internal/wasmpack"
)

// The widget and its floor, built from source in this run with the same
// toolchain and flags as make wasm and packed by the same wasmpack; and
// the floor with parts of the widget linked in, to say what each part
// costs once compressed.
var wasmTargets = []struct {
	name, pkg string
	part      bool // built only to be weighed
}{
	{"widget", "./wasm", false},
	{"hello", "./server/bench/testdata/hello", false},
	{"hello+elicit", "./server/bench/testdata/hello-elicit", true},
	{"hello+client", "./server/bench/testdata/hello-client", true},
	{"hello+elicit+client", "./server/bench/testdata/hello-both", true},
	{"hello-ws", "./server/bench/testdata/hello-ws", true}, // the open page's floor
}

// wasmFlags are make wasm's.
var wasmFlags = []string{"-trimpath", "-ldflags=-s -w"}

// builds holds the folders the wasm files were built into, once per run.
type builds struct {
	once sync.Once
	dir  string // widget/app.wasm(.br,.gz), hello/..., *.names.wasm and *.linked.wasm(.br)
	err  error
}

var built builds

// buildWasm builds both programs and their precompressed copies.
func buildWasm(ctx context.Context, c *config) (string, error) {
	built.once.Do(func() {
		if c.reuse != "" {
			built.dir = c.reuse
			return
		}
		built.dir, built.err = os.MkdirTemp("", "formbridge-bench-")
		if built.err != nil {
			return
		}
		for _, t := range wasmTargets {
			out := filepath.Join(built.dir, t.name, "app.wasm")
			// The linker's own file, beside the folder the browser
			// benchmarks serve as the web folder, as the names build is.
			linked := filepath.Join(built.dir, t.name+".linked.wasm")
			// Built and packed as make wasm does, then weighed.
			if built.err = wasmStep(ctx, c, append(append([]string{goTool(), "build"}, wasmFlags...), "-o", linked, t.pkg)); built.err != nil {
				return
			}
			if built.err = os.MkdirAll(filepath.Dir(out), 0o755); built.err != nil {
				return
			}
			if built.err = wasmpack.PackFile(linked, out); built.err != nil {
				return
			}
			steps := [][]string{{"brotli", "-f", "-q", "11", "-k", "-o", out + ".br", out}}
			if !t.part {
				steps = append(steps,
					[]string{"gzip", "-f", "-k", "-9", out},
					// What wasmpack saves: the linker's own file, compressed.
					[]string{"brotli", "-f", "-q", "11", "-k", "-o", linked + ".br", linked},
					// Unstripped, to read the size of each package's code and
					// name the functions traced loads compile.
					[]string{goTool(), "build", "-trimpath", "-o", filepath.Join(built.dir, t.name+".names.wasm"), t.pkg})
			}
			for _, s := range steps {
				if built.err = wasmStep(ctx, c, s); built.err != nil {
					return
				}
			}
		}
	})
	return built.dir, built.err
}

// wasmStep runs one command of a wasm build in the repository.
func wasmStep(ctx context.Context, c *config, s []string) error {
	cmd := exec.CommandContext(ctx, s[0], s[1:]...)
	cmd.Dir = c.repo
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(s, " "), err, b)
	}
	return nil
}

func cleanBuilds(c *config) {
	switch {
	case built.dir == "" || c.reuse != "":
	case c.keep:
		log.Printf("wasm builds kept in %s", built.dir)
	default:
		os.RemoveAll(built.dir)
	}
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// sizeBudget is issue 6's: the widget at most this times the hello
// world's brotli size.
const sizeBudget = 1.10

func benchSize(ctx context.Context, c *config, r *report) error {
	dir, err := buildWasm(ctx, c)
	if err != nil {
		return err
	}
	s := r.section("Size of the widget (app.wasm)")
	s.printf("Both built in this run as `make wasm` builds the widget: `GOOS=js GOARCH=wasm go build %s`, then wasmpack (joins the data segments the linker splits at each run of zeros; the same memory), then `brotli -q 11` and `gzip -9`. ", strings.Join(quoteArgs(wasmFlags), " "))
	s.printf("The floor is a bare go-app v9.8.0 hello world (server/bench/testdata/hello), packed the same way, so the ratio compares the programs, not the packing.\n\n")
	var rows [][]string
	sizes := map[string][3]int64{}
	for _, t := range wasmTargets {
		if t.part {
			continue
		}
		p := filepath.Join(dir, t.name, "app.wasm")
		sz := [3]int64{fileSize(p), fileSize(p + ".gz"), fileSize(p + ".br")}
		sizes[t.name] = sz
		rows = append(rows, []string{t.name, mb(sz[0]), mb(sz[1]), mb(sz[2])})
	}
	w, h := sizes["widget"], sizes["hello"]
	// A file missing (a -reuse folder from an older or broken run) would
	// weigh 0 bytes and meet the budget: no figure is better than that one.
	for _, name := range []string{"widget", "hello"} {
		if sz := sizes[name]; slices.Contains(sz[:], 0) {
			return fmt.Errorf("%s's app.wasm, .gz or .br is missing from %s", name, dir)
		}
	}
	rows = append(rows, []string{"ratio widget / hello", ratio(w[0], h[0]), ratio(w[1], h[1]), ratio(w[2], h[2])})
	s.table([]string{"", "raw", "gzip -9", "brotli -q 11"}, rows)
	wl, hl := fileSize(filepath.Join(dir, "widget.linked.wasm.br")), fileSize(filepath.Join(dir, "hello.linked.wasm.br"))
	if wl > 0 && hl > 0 { // not in a -reuse folder from before wasmpack
		s.printf("Without wasmpack (the linker's file, brotli -q 11): the widget %s, the floor %s (ratio %s). wasmpack saves %s (%.1f%%) of the widget's download and %s of the floor's.\n\n",
			mb(wl), mb(hl), ratio(wl, hl), kb(wl-w[2]), 100*float64(wl-w[2])/float64(wl), kb(hl-h[2]))
	}
	budget := int64(sizeBudget * float64(h[2]))
	s.printf("Budget: %.2f × the floor's brotli = %s; the widget is %s, %s.\n\n", sizeBudget, mb(budget), mb(w[2]), over(w[2], budget))
	r.target("wasm size (brotli)", fmt.Sprintf("≤ %.2f × hello world (%s)", sizeBudget, mb(budget)), fmt.Sprintf("%s = %s × floor", mb(w[2]), ratio(w[2], h[2])), w[2] <= budget)

	s.printf("What each part costs once compressed: the floor built again with part of the widget linked in (server/bench/testdata/hello-*), brotli size minus the floor's. ")
	s.printf("Brotli's output does not add up exactly (the same code compresses a little differently next to other code), so these are estimates to a few KB.\n\n")
	br := func(name string) int64 { return fileSize(filepath.Join(dir, name, "app.wasm.br")) }
	both := br("hello+elicit+client") - h[2]
	rows = [][]string{
		{"app/elicit: the model as the widget uses it (decode the bridge's reading, collect, check answers)", kb(br("hello+elicit") - h[2])},
		{"app/client with app/wire and coder/websocket's browser build", kb(br("hello+client") - h[2])},
		{"both together", kb(both)},
		{"the rest of the widget: app/ui, app/embed and the go-app elements they use", kb(w[2] - h[2] - both)},
		{"the whole widget over the floor", kb(w[2] - h[2])},
		{"allowed over the floor by the budget", kb(budget - h[2])},
	}
	s.table([]string{"part", "brotli bytes over the floor"}, rows)

	wc, err1 := codeByPackage(filepath.Join(dir, "widget.names.wasm"))
	hc, err2 := codeByPackage(filepath.Join(dir, "hello.names.wasm"))
	if err1 != nil || err2 != nil {
		return fmt.Errorf("code by package: %v %v", err1, err2)
	}
	type pkg struct {
		name        string
		size, extra int
	}
	var pkgs []pkg
	var total, extra int
	for name, n := range wc {
		pkgs = append(pkgs, pkg{name, n, n - hc[name]})
		total += n
		extra += n - hc[name]
	}
	slices.SortFunc(pkgs, func(a, b pkg) int { return b.extra - a.extra })
	s.printf("Where the bytes go: code (wasm function bodies, before compression) per package, from an unstripped build of each. ")
	s.printf("The widget has %s of code, %s more than the hello world; the packages adding most:\n\n", kb(int64(total)), kb(int64(extra)))
	rows = nil
	for _, p := range pkgs[:min(15, len(pkgs))] {
		rows = append(rows, []string{"`" + p.name + "`", kb(int64(p.size)), kb(int64(p.extra))})
	}
	s.table([]string{"package (as the wasm linker names it)", "code", "more than hello"}, rows)
	return nil
}

func quoteArgs(a []string) []string {
	q := make([]string, len(a))
	for i, s := range a {
		if strings.ContainsAny(s, " =") {
			q[i] = `"` + s + `"`
		} else {
			q[i] = s
		}
	}
	return q
}

func mb(n int64) string { return fmt.Sprintf("%.3f MB", float64(n)/1e6) }
func kb(n int64) string { return fmt.Sprintf("%.1f KB", float64(n)/1e3) }
func ratio(a, b int64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

func over(n, budget int64) string {
	if n <= budget {
		return kb(budget-n) + " under"
	}
	return kb(n-budget) + " over"
}
