package main

import (
	"math"
	"testing"
)

// The probe's counts within bucket bounds are the cumulative counts of
// those buckets, out of the total; a bound that is not a bucket's is "?".
func TestHistogramCountsWithinBounds(t *testing.T) {
	bs := []bucket{{le: 1, count: 4}, {le: 2, count: 15}, {le: 3, count: 19}, {le: math.Inf(1), count: 20}}
	cases := []struct {
		name string
		bs   []bucket
		les  []float64
		want string
	}{
		{"bounds of buckets", bs, []float64{1, 2, 3}, "4 / 15 / 19 of 20"},
		{"a bound between buckets", bs, []float64{1.5}, "? of 20"},
		{"nothing scraped", nil, []float64{1}, "none"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := within(tc.bs, tc.les...); got != tc.want {
				t.Fatalf("within(%v) = %q, want %q", tc.les, got, tc.want)
			}
		})
	}
}
