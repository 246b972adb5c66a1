package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// report collects what each part measured, and the targets as met or
// missed, and renders BENCHMARKS.md.
type report struct {
	c        *config
	start    time.Time
	load0    string // the machine's load average when the run began
	machine  machine
	sections []*section
	targets  []target
	errors   []string
}

type section struct {
	title string
	body  strings.Builder
}

// target is one of issue 6's goals with what this run measured.
type target struct {
	what, goal, got string
	met             bool
}

func newReport(c *config) *report {
	return &report{c: c, start: time.Now().UTC(), machine: describeMachine(), load0: loadAverage()}
}

func (r *report) section(title string) *section {
	s := &section{title: title}
	r.sections = append(r.sections, s)
	return s
}

func (s *section) printf(format string, args ...any) { fmt.Fprintf(&s.body, format, args...) }

// table writes a markdown table.
func (s *section) table(header []string, rows [][]string) {
	s.printf("| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, row := range rows {
		s.printf("| %s |\n", strings.Join(row, " | "))
	}
	s.printf("\n")
}

func (r *report) target(what, goal, got string, met bool) {
	r.targets = append(r.targets, target{what, goal, got, met})
}

func (r *report) failed(part string, err error) {
	r.errors = append(r.errors, fmt.Sprintf("%s: %v", part, err))
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "**missed**"
}

func (r *report) markdown() string {
	var b strings.Builder
	m := r.machine
	fmt.Fprintf(&b, "# formbridge benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `go run ./server/bench -out BENCHMARKS.md` (`make bench`); every figure below was measured by that run. ")
	fmt.Fprintf(&b, "Benchmarks are not tests: a missed target is reported here, never a failed build.\n\n")
	fmt.Fprintf(&b, "- Date: %s (took %s)\n", r.start.Format("2006-01-02 15:04 UTC"), time.Since(r.start).Round(time.Second))
	fmt.Fprintf(&b, "- Machine: %s, %d cores, %d MiB memory, %s\n", m.CPU, m.Cores, m.MemoryMiB, m.Kernel)
	fmt.Fprintf(&b, "- Load average (1, 5, 15 min) at the start: %s; at the end: %s. The machine is shared, so figures are noisy; a ratio to a floor measured in the same run is the steadier reading\n", r.load0, loadAverage())
	fmt.Fprintf(&b, "- Go: %s; Chromium: %s\n", m.Go, m.Chromium)
	fmt.Fprintf(&b, "- Runs per figure: %d; counts scaled by %g; loopback (127.0.0.1) only\n", r.c.runs, r.c.scale)
	fmt.Fprintf(&b, "- Medians and p99s are nearest-rank over every sample of every run; \"floor\" is what the same work costs without formbridge, measured in the same run\n\n")
	fmt.Fprintf(&b, "## Targets\n\n| what | target | measured | |\n|---|---|---|---|\n")
	for _, t := range r.targets {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.what, t.goal, t.got, verdict(t.met))
	}
	if len(r.errors) > 0 {
		fmt.Fprintf(&b, "\nParts that could not run:\n\n")
		for _, e := range r.errors {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	b.WriteString("\n")
	for _, s := range r.sections {
		fmt.Fprintf(&b, "## %s\n\n%s\n", s.title, strings.TrimRight(s.body.String(), "\n")+"\n")
	}
	return b.String()
}

// summary is what the terminal shows at the end: each target, met or missed.
func (r *report) summary() string {
	var b strings.Builder
	for _, t := range r.targets {
		v := "met   "
		if !t.met {
			v = "MISSED"
		}
		fmt.Fprintf(&b, "%s  %s: %s (target %s)\n", v, t.what, t.got, t.goal)
	}
	for _, e := range r.errors {
		fmt.Fprintf(&b, "ERROR   %s\n", e)
	}
	if r.c.out != "" {
		fmt.Fprintf(&b, "report written to %s\n", r.c.out)
	}
	return b.String()
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}

// rss is this process's resident memory, from /proc/self/status.
func rss() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}
