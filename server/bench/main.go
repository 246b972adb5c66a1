// Command bench measures formbridge beside the floors it cannot beat and
// writes BENCHMARKS.md: the widget's size against a bare go-app hello
// world, page loads in headless Chromium, the hub's round trip against a
// raw WebSocket echo, throughput through the Go and HTTP APIs, and the
// memory of idle widgets and pending requests.
//
// Every run is bounded in count and time and uses loopback only; every
// figure written is measured by the run that writes it. Targets are
// printed as met or missed: a benchmark never fails a build.
//
//	go run ./server/bench -out BENCHMARKS.md
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// config is what the flags set; scale shrinks every count for a quick
// look while the machine is busy.
type config struct {
	out     string
	runs    int
	scale   float64
	only    map[string]bool
	profile string
	repo    string // the module's root, for builds
	reuse   string // a folder of an earlier run's builds, kept with -keep
	keep    bool
}

func (c *config) n(full int) int {
	n := int(float64(full) * c.scale)
	return max(n, 1)
}

func (c *config) wants(part string) bool { return len(c.only) == 0 || c.only[part] }

// parts, in the order they run and are written.
var parts = []struct {
	name string
	run  func(ctx context.Context, c *config, r *report) error
}{
	{"size", benchSize},
	{"hub", benchRoundTrip},
	{"throughput", benchThroughput},
	{"capacity", benchCapacity},
	{"browser", benchBrowser},
	{"gobench", benchGo},
}

func main() {
	if isChild() {
		runChild()
		return
	}
	var c config
	var only string
	flag.StringVar(&c.out, "out", "", "write the report to this file (default: standard output)")
	flag.IntVar(&c.runs, "runs", 5, "runs per figure; medians and p99s are over all of them")
	flag.Float64Var(&c.scale, "scale", 1, "fraction of the full counts, for a quick look (0.1 = a tenth)")
	flag.StringVar(&only, "only", "", "comma-separated parts to run: size,hub,throughput,capacity,browser,gobench")
	flag.StringVar(&c.profile, "cpuprofile", "bench-throughput.prof", "where the CPU profile of the throughput run goes")
	flag.StringVar(&c.reuse, "reuse", "", "use the wasm builds kept by an earlier -keep run in this folder, instead of building (a quicker look; never for the report)")
	flag.BoolVar(&c.keep, "keep", false, "keep the folder of wasm builds and say where it is")
	flag.Parse()
	log.SetFlags(log.Ltime)
	log.SetPrefix("bench: ")
	if c.runs < 1 || c.scale <= 0 || c.scale > 1 {
		log.Fatal("-runs must be at least 1 and -scale in (0, 1]")
	}
	c.only = map[string]bool{}
	for p := range strings.SplitSeq(only, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.only[p] = true
		}
	}
	var err error
	if c.repo, err = moduleRoot(); err != nil {
		log.Fatal(err)
	}
	raiseFileLimit()

	// The whole suite stops by itself: every part has its own bounds,
	// and this one catches anything that would hang. Stopped from outside
	// (Ctrl-C, or a kill as a CI's timeout sends), it still removes its
	// builds: 118 MB a run.
	stopped, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(stopped, 20*time.Minute)
	defer cancel()

	defer cleanBuilds(&c)
	r := newReport(&c)
	for _, p := range parts {
		if !c.wants(p.name) {
			continue
		}
		start := time.Now()
		log.Printf("%s: running", p.name)
		if err := p.run(ctx, &c, r); err != nil {
			log.Printf("%s: %v", p.name, err)
			r.failed(p.name, err)
		}
		log.Printf("%s: done in %s", p.name, time.Since(start).Round(time.Millisecond))
	}
	if stopped.Err() != nil {
		// A report of parts cut short would overwrite the last whole one.
		log.Printf("%v: no report written", context.Cause(stopped))
		return
	}
	text := r.markdown()
	if c.out == "" {
		fmt.Print(text)
	} else if err := os.WriteFile(c.out, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprint(os.Stderr, r.summary())
}
