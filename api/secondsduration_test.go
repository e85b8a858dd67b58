package api_test

import (
	"math"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
)

// TestSecondsDuration_Longest: a duration of 9,223,372,036 s or more
// (the whole seconds a time.Duration holds) that a float64 holds exactly
// comes back as it was, and only what is past time.Duration's range is
// clamped. (Every value from 9,223,372,036 s on was clamped to the
// longest duration, 0.85 s more: a mailbox age or board lease of that
// length was stored so.)
func TestSecondsDuration_Longest(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want time.Duration
	}{
		{(9223372036 * time.Second).Seconds(), 9223372036 * time.Second},
		{(9223372036*time.Second + 500*time.Millisecond).Seconds(), 9223372036*time.Second + 500*time.Millisecond},
		{(-9223372036 * time.Second).Seconds(), -9223372036 * time.Second},
		{time.Duration(math.MaxInt64).Seconds(), math.MaxInt64},
		{time.Duration(math.MinInt64).Seconds(), math.MinInt64},
		{9223372036.8547759, math.MaxInt64}, // rounds past the range
		{1e19, math.MaxInt64},
		{-1e19, math.MinInt64},
		{math.Inf(1), math.MaxInt64},
		{math.NaN(), 0},
		{1.001, 1001 * time.Millisecond},
	} {
		if got := api.SecondsDuration(tc.s); got != tc.want {
			t.Errorf("SecondsDuration(%v) = %d, want %d", tc.s, got, tc.want)
		}
	}
}
