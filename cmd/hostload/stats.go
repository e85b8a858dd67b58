package main

import (
	"encoding/json"
	"math"
	"slices"
)

// stats summarises latencies in milliseconds as the SQL side does
// (summarize in sqlbench.py): nearest-rank p50 and p99, max, mean, median.
type stats struct {
	N      int
	P50    float64
	P99    float64
	Max    float64
	Mean   float64
	Median float64
}

// summarizeSome is summarize of ms, nil if ms is empty.
func summarizeSome(ms []float64) *stats {
	if len(ms) == 0 {
		return nil
	}
	st := summarize(ms)
	return &st
}

// summarize returns the stats of ms (ms is not modified).
func summarize(ms []float64) stats {
	if len(ms) == 0 {
		return stats{}
	}
	xs := slices.Clone(ms)
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return stats{
		N: len(xs), P50: pct(xs, 50), P99: pct(xs, 99), Max: xs[len(xs)-1],
		Mean: sum / float64(len(xs)), Median: pct(xs, 50),
	}
}

// pct is the nearest-rank percentile p of the sorted, non-empty xs: the
// element at ceil(p/100 x n) - 1, clamped to the slice.
func pct(xs []float64, p float64) float64 {
	i := int(math.Ceil(p/100*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// MarshalJSON writes {"n": 0} for no values, else every field, with the
// keys of the SQL side's summaries.
func (s stats) MarshalJSON() ([]byte, error) {
	if s.N == 0 {
		return []byte(`{"n":0}`), nil
	}
	return json.Marshal(struct {
		N      int     `json:"n"`
		P50    float64 `json:"p50"`
		P99    float64 `json:"p99"`
		Max    float64 `json:"max"`
		Mean   float64 `json:"mean"`
		Median float64 `json:"median"`
	}{s.N, s.P50, s.P99, s.Max, s.Mean, s.Median})
}
