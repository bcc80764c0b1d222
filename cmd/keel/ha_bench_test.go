package main

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHAWrites measures acknowledged API writes (cluster template
// creates, each one commit pushed to the Git server and projected into
// PostgreSQL) with 1 and with 3 replicas, from haClients concurrent
// clients spread evenly over the replicas. Run it with a fixed count, so
// that each set-up is started once:
//
//	go test -run '^$' -bench HAWrites -benchtime 60x ./cmd/keel
func BenchmarkHAWrites(b *testing.B) {
	const haClients = 6
	// Set up from the parent benchmark: a sub-benchmark's cleanups run
	// after each of its rounds, which would restart the replicas.
	parent := b
	clusters := map[int]*haCluster{}
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			h := clusters[n]
			if h == nil {
				h = newHACluster(parent, n)
				clusters[n] = h
			}
			var next, failed atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for c := range haClients {
				r := h.replicas[c%n]
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						res, err := r.try(http.MethodPost, "/v1/clustertemplates", templateBody(fmt.Sprintf("bench-%d-%d", n, i)))
						if err != nil || res.status != http.StatusCreated {
							failed.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
			if f := failed.Load(); f > 0 {
				b.Errorf("%d of %d writes failed", f, b.N)
			}
		})
	}
}
