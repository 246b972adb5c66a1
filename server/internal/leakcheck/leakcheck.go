// Package leakcheck measures what cycles of a path leave behind, for the
// tests that run a path many times and compare: heap in use after
// collection, goroutines and open files. A leak is growth in proportion to
// the number of cycles.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Snapshot is what the process holds at one moment.
type Snapshot struct {
	Heap       uint64
	Goroutines int
	Files      int // open file descriptors
}

// Take collects garbage, then reads what the process holds.
func Take() Snapshot {
	for range 3 {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	ents, _ := os.ReadDir("/proc/self/fd")
	return Snapshot{Heap: ms.HeapAlloc, Goroutines: runtime.NumGoroutine(), Files: len(ents)}
}

// After waits up to 3 s for the goroutines to fall back to before's count
// (those that end after their connection closes take a moment), then
// takes a snapshot.
func After(before Snapshot) Snapshot {
	for deadline := time.Now().Add(3 * time.Second); runtime.NumGoroutine() > before.Goroutines && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return Take()
}

// Limits are the growth a check allows over all the cycles: some slack
// for what the runtime and the test keep, never in proportion to them.
type Limits struct {
	Heap       int64
	Goroutines int
	Files      int
}

// Check logs what n cycles of what left behind, and fails t when it is
// past lim, with the goroutines then running, grouped by where they are.
// detail (the path's own counts) goes into both lines.
func Check(t testing.TB, what string, n int, before, after Snapshot, lim Limits, detail string) {
	t.Helper()
	heap := int64(after.Heap) - int64(before.Heap)
	line := fmt.Sprintf("%d %s: heap %+d bytes (%+.0f each), goroutines %d -> %d, files %d -> %d",
		n, what, heap, float64(heap)/float64(n), before.Goroutines, after.Goroutines, before.Files, after.Files)
	if detail != "" {
		line += "; " + detail
	}
	t.Log(line)
	if heap > lim.Heap || after.Goroutines > before.Goroutines+lim.Goroutines || after.Files > before.Files+lim.Files {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("grew past %+v over %s\n%s", lim, line, goroutines(string(buf)))
	}
}

// goroutines counts the goroutines of a stack dump by their top frames,
// listing the groups of more than three.
func goroutines(stacks string) string {
	counts := map[string]int{}
	for _, g := range strings.Split(stacks, "\n\n") {
		lines := strings.Split(g, "\n")
		key := ""
		for i := 1; i < len(lines) && i < 8; i += 2 {
			key += strings.TrimSpace(lines[i]) + " | "
		}
		counts[key]++
	}
	var b strings.Builder
	for k, c := range counts {
		if c > 3 {
			fmt.Fprintf(&b, "%4d  %s\n", c, k)
		}
	}
	return b.String()
}
