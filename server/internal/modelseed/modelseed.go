// Package modelseed picks the seeds of a model-based test: 1 to 10 by
// default, one to replay (PREFIX_SEED) or the first n (PREFIX_SEEDS).
package modelseed

import (
	"os"
	"strconv"
	"testing"
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
