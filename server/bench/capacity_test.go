package main

import (
	"context"
	"math"
	"os"
	"testing"
)

// TestMain lets the test binary be the benchmark's child processes too.
func TestMain(m *testing.M) {
	if isChild() {
		runChild()
		return
	}
	os.Exit(m.Run())
}

// The memory a pending request costs does not depend on what ran before
// it: the runtime keeps the descriptor of every goroutine that ended for
// the next one, so measured in one process the second run would not pay
// for its callers' goroutines and come out lower.
func TestPendingRunsIndependent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 60000 goroutines")
	}
	const n = 30000
	ctx := context.Background()
	first, _, err := measureFresh(ctx, "pending", n)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := measureFresh(ctx, "pending", n)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(second-first) / first; d > 0.08 {
		t.Errorf("per pending request: %.0f bytes, then %.0f in the next run (%.0f%% apart)", first, second, 100*d)
	}
}

// idleRun divides by the widgets that connected, never by more.
func TestCheckReady(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"ready 10000\n", true},
		{"ready 9312\n", false},
		{"ready\n", false},
		{"failed after 12: refused\n", false},
	} {
		if err := checkReady(c.line, 10000); (err == nil) != c.ok {
			t.Errorf("checkReady(%q) = %v", c.line, err)
		}
	}
}
