package main

import (
	"bufio"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// scrape reads keel's /metrics: every sample, keyed by its name and labels
// as the text format writes them.
func scrape(url string) (map[string]float64, error) {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		if v, err := strconv.ParseFloat(l[i+1:], 64); err == nil {
			out[l[:i]] = v
		}
	}
	return out, sc.Err()
}

// bucket is a histogram's cumulative count up to le.
type bucket struct {
	le    float64
	count float64
}

// histogramDelta is what a histogram counted between two scrapes.
func histogramDelta(before, after map[string]float64, name string) []bucket {
	var bs []bucket
	prefix := name + `_bucket{le="`
	for k, v := range after {
		le, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(strings.TrimSuffix(le, `"}`), 64)
		if err != nil {
			x = math.Inf(1)
		}
		bs = append(bs, bucket{le: x, count: v - before[k]})
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].le < bs[j].le })
	return bs
}

// quantile interpolates within the bucket that holds q, as Prometheus'
// histogram_quantile does; NaN when nothing was counted.
func quantile(q float64, bs []bucket) float64 {
	if len(bs) == 0 || bs[len(bs)-1].count == 0 {
		return math.NaN()
	}
	rank := q * bs[len(bs)-1].count
	lo, below := 0.0, 0.0
	for _, b := range bs {
		if b.count >= rank {
			if math.IsInf(b.le, 1) {
				return lo
			}
			return lo + (b.le-lo)*(rank-below)/math.Max(b.count-below, 1e-9)
		}
		lo, below = b.le, b.count
	}
	return lo
}

// within says how many of a histogram's observations were at most each of
// les (bucket bounds), as "a / b of n": the quantiles interpolate within
// coarse buckets, these counts do not.
func within(bs []bucket, les ...float64) string {
	if len(bs) == 0 {
		return "none"
	}
	parts := make([]string, len(les))
	for i, le := range les {
		parts[i] = "?"
		for _, b := range bs {
			if b.le == le {
				parts[i] = strconv.FormatFloat(b.count, 'f', 0, 64)
			}
		}
	}
	return strings.Join(parts, " / ") + " of " + strconv.FormatFloat(bs[len(bs)-1].count, 'f', 0, 64)
}
