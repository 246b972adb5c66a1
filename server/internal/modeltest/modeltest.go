// Package modeltest runs model-based tests: a seeded random run of steps
// per seed, each in its own testing/synctest bubble, whose failure lists
// the steps so far and how to replay the seed. The seeds are 1 to 10 by
// default, one to replay (PREFIX_SEED) or the first n (PREFIX_SEEDS).
package modeltest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// Seeds reads prefix+"_SEED" and prefix+"_SEEDS" from the environment.
func Seeds(t testing.TB, prefix string) []uint64 {
	t.Helper()
	if s := os.Getenv(prefix + "_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s_SEED: %v", prefix, err)
		}
		return []uint64{n}
	}
	n := 10
	if s := os.Getenv(prefix + "_SEEDS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("%s_SEEDS: %v", prefix, err)
		}
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// Each runs run for every seed (Seeds), in a subtest and a synctest
// bubble of its own, which fails if a goroutine of the run is left
// blocked. It returns how many seeds ran.
func Each(t *testing.T, prefix string, run func(t *testing.T, log *Log)) int {
	seeds := Seeds(t, prefix)
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { run(t, &Log{t: t, prefix: prefix, Seed: seed}) })
		})
	}
	return len(seeds)
}

// Log is one seed's run: the steps taken so far.
type Log struct {
	t      testing.TB
	prefix string
	Seed   uint64
	steps  []string
}

// Step records the step about to be taken.
func (l *Log) Step(name string) { l.steps = append(l.steps, name) }

// Note adds to the last step's name what it turned out to be.
func (l *Log) Note(s string) { l.steps[len(l.steps)-1] += s }

// Steps is how many steps were taken.
func (l *Log) Steps() int { return len(l.steps) }

// Fatalf fails the run, listing its steps and how to replay it.
func (l *Log) Fatalf(format string, args ...any) {
	l.t.Helper()
	test, _, _ := strings.Cut(l.t.Name(), "/")
	l.t.Fatalf("seed %d, step %d: %s\nsteps:\n  %s\nreplay: %s_SEED=%d go test -run '^%s$' in this package",
		l.Seed, len(l.steps), fmt.Sprintf(format, args...), strings.Join(l.steps, "\n  "), l.prefix, l.Seed, test)
}

// Pick returns an element of xs that keep accepts, chosen by rng, or the
// zero T when none does (then rng is not used).
func Pick[T any](rng *rand.Rand, xs []T, keep func(T) bool) T {
	var kept []T
	for _, x := range xs {
		if keep(x) {
			kept = append(kept, x)
		}
	}
	if len(kept) == 0 {
		var none T
		return none
	}
	return kept[rng.IntN(len(kept))]
}
