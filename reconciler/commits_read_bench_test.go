package reconciler

import (
	"fmt"
	"testing"
	"time"

	"github.com/openkeel/keel/intent"
)

// BenchmarkReadCommitsOfAPass measures what a pass reads of the commits
// written since the last one (changedSince: their dates, and the clusters
// created and removed meanwhile), for 1,000 clusters and 100 or 1,000
// commits of one cluster each, as a burst of API changes leaves them. Per
// commit the cost must not grow with the burst.
func BenchmarkReadCommitsOfAPass(b *testing.B) {
	for _, commits := range []int{100, 1000} {
		b.Run(fmt.Sprintf("commits=%d", commits), func(b *testing.B) {
			f := newFixture(b)
			states := f.populate(b, 1000)
			old, err := f.store.SnapshotHead()
			if err != nil {
				b.Fatal(err)
			}
			units := map[string]bool{}
			for i := 0; i < commits; i++ {
				st := states[i%len(states)]
				st.NodeGroups[1].NodeCount++
				f.writeClusters(b, "resize", []*intent.ClusterState{st})
				units[st.Dir] = true
			}
			sn, err := f.store.SnapshotHead()
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f.rec.changedSince(old, sn, units, time.Now())
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*commits), "µs/commit")
		})
	}
}
