package main

import (
	"encoding/json"
	"testing"
)

// The nearest-rank rule of sqlbench.py: the element at ceil(p/100 x n) - 1.
func TestSummarize(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i) // 100..1, unsorted
	}
	for _, tc := range []struct {
		name          string
		xs            []float64
		p50, p99, max float64
		mean          float64
	}{
		{"one", []float64{7}, 7, 7, 7, 7},
		{"three", []float64{3, 1, 2}, 2, 3, 3, 2},
		{"four", []float64{4, 1, 3, 2}, 2, 4, 4, 2.5},
		{"hundred", hundred, 50, 99, 100, 50.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarize(tc.xs)
			if s.N != len(tc.xs) || s.P50 != tc.p50 || s.Median != tc.p50 || s.P99 != tc.p99 || s.Max != tc.max || s.Mean != tc.mean {
				t.Errorf("%+v, want p50 %v p99 %v max %v mean %v", s, tc.p50, tc.p99, tc.max, tc.mean)
			}
		})
	}
	if hundred[0] != 100 {
		t.Error("summarize sorted its argument")
	}
}

func TestStats_JSON(t *testing.T) {
	for _, tc := range []struct {
		s    stats
		want string
	}{
		{summarize(nil), `{"n":0}`},
		{summarize([]float64{2, 1}), `{"n":2,"p50":1,"p99":2,"max":2,"mean":1.5,"median":1}`},
	} {
		b, err := json.Marshal(tc.s)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s, %v; want %s", b, err, tc.want)
		}
	}
}
