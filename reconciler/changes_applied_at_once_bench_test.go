package reconciler

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkTenChangesApplied measures ten clusters changed in one commit
// (an operator's batch, or ten users at once) until the last is applied,
// with one worker (serial, as before issue 30) and with the default four:
//
//	go test -run '^$' -bench TenChangesApplied -benchtime 5x ./reconciler
func BenchmarkTenChangesApplied(b *testing.B) {
	for _, workers := range []int{1, defaultWorkers} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			f := newFixture(b)
			f.rec.o.Workers = workers
			states := f.populate(b, 10)
			ctx := context.Background()
			f.rec.Sync(ctx) // created and applied once
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for _, st := range states {
					st.NodeGroups[1].NodeCount = int64(1 + (i+1)%3)
				}
				f.writeClusters(b, "resize ten", states)
				b.StartTimer()
				f.rec.Sync(ctx)
				if len(f.rec.pending) != 0 {
					b.Fatalf("pending after sync: %v", f.rec.pending)
				}
			}
		})
	}
}
