package main

import (
	"math"
	"slices"
	"time"
)

// samples are measurements of one figure, pooled over every run.
type samples []float64

func (s samples) sorted() samples {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// quantile is the nearest-rank quantile q in [0, 1]: a value that was
// measured, never an interpolation between two.
func (s samples) quantile(q float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	c := s.sorted()
	i := int(math.Ceil(q*float64(len(c)))) - 1
	return c[min(max(i, 0), len(c)-1)]
}

func (s samples) median() float64 { return s.quantile(0.5) }
func (s samples) p99() float64    { return s.quantile(0.99) }
func (s samples) min() float64    { return s.quantile(0) }

// ms converts a duration to milliseconds, the unit of every latency here.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
