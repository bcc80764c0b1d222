package reconciler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/repo"
)

// populate commits n clusters in one commit (intent and rendered output) and
// returns their states; nothing is applied.
func (f *fixture) populate(b *testing.B, n int) []*intent.ClusterState {
	b.Helper()
	states := make([]*intent.ClusterState, n)
	for i := range states {
		st := f.cluster(fmt.Sprintf("bench%05d", i), 1)
		// A stack id unique across the benchmark's clusters, and ten
		// clusters per project, as Magnum quotas (20 by default) make
		// repositories look.
		st.Cluster.StackID = fmt.Sprintf("kube-%05d", i)
		st.Cluster.ProjectID = fmt.Sprintf("project-%04d", i/10)
		st.Dir = intent.ClusterDirOf(&st.Cluster)
		states[i] = st
	}
	f.writeClusters(b, "populate", states)
	return states
}

// writeClusters commits the clusters' intent and rendering in one commit.
func (f *fixture) writeClusters(b *testing.B, subject string, states []*intent.ClusterState) {
	b.Helper()
	_, err := f.store.Update(context.Background(), func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		var changes []gitstore.Change
		for _, st := range states {
			ch, err := repo.WriteCluster(sn, &f.tmpl, st, intent.Facts{})
			if err != nil {
				return nil, err
			}
			changes = append(changes, ch...)
		}
		return &gitstore.Commit{Subject: subject, Author: gitstore.Signature{Name: "b", Email: "b@x"}, Changes: changes}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkApplyOneChangedCluster measures a commit that changes one cluster
// followed by the sync that applies it, in repositories of 100 and 10,000
// clusters: the cost must not grow with the repository (the diff skips
// unchanged subtrees by hash; only the changed cluster is applied).
func BenchmarkApplyOneChangedCluster(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			f := newFixture(b)
			states := f.populate(b, n)
			head, _ := f.store.Head()
			f.rec.synced = head // as if everything were applied already
			st := states[n/2]
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer() // the commit is the API's cost, measured by BenchmarkCommitOneCluster
				st.NodeGroups[1].NodeCount = int64(1 + i%3)
				_, err := f.store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
					ch, err := repo.WriteCluster(sn, &f.tmpl, st, intent.Facts{})
					return &gitstore.Commit{Subject: "resize", Author: gitstore.Signature{Name: "b", Email: "b@x"}, Changes: ch}, err
				})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				f.rec.Sync(ctx)
				if len(f.rec.pending) != 0 {
					b.Fatalf("pending after sync: %v", f.rec.pending)
				}
			}
		})
	}
}

// BenchmarkCommitToApplied measures the latency from a commit written by the
// API to the reconciler reporting it applied, with the reconciler running.
func BenchmarkCommitToApplied(b *testing.B) {
	f := newFixture(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = f.rec.Run(ctx) }()
	st := f.cluster("latency", 1)
	f.write(st)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st.NodeGroups[1].NodeCount = int64(2 + i%2)
		f.write(st)
		sn, _ := f.store.SnapshotHead()
		want, _ := sn.Hash(st.Dir)
		deadline := time.Now().Add(30 * time.Second)
		for {
			f.sink.mu.Lock()
			got := f.sink.applied[st.Cluster.UUID]
			f.sink.mu.Unlock()
			if got == want.String() {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("not applied within 30 s")
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// BenchmarkCommitOneCluster measures what the API pays to commit a change of
// one cluster (compile, write the changed subtrees, move the branch) in
// repositories of 100 and 10,000 clusters.
func BenchmarkCommitOneCluster(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			f := newFixture(b)
			st := f.populate(b, n)[n/2]
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st.NodeGroups[1].NodeCount = int64(1 + i%3)
				_, err := f.store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
					ch, err := repo.WriteCluster(sn, &f.tmpl, st, intent.Facts{})
					return &gitstore.Commit{Subject: "resize", Author: gitstore.Signature{Name: "b", Email: "b@x"}, Changes: ch}, err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChangeAppliedDuringResync measures commit → applied of one
// cluster's change while the reconciler resyncs without pause (Resync 1 ns:
// a full pass due on every poll, the worst case of the 5-minute one), with
// 10, 100 and 1,000 clusters. The changed cluster is the last of a pass:
//
//	go test -run '^$' -bench ChangeAppliedDuringResync -benchtime 5x ./reconciler
func BenchmarkChangeAppliedDuringResync(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			f := newFixture(b)
			f.rec.o.Resync, f.rec.o.Poll = time.Nanosecond, 10*time.Millisecond
			states := f.populate(b, n)
			st := states[0]
			for _, s := range states {
				if s.Dir > st.Dir {
					st = s
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { _ = f.rec.Run(ctx) }()
			f.waitApplied(b, st, 30*time.Minute) // the start-up pass
			b.ResetTimer()
			for i := range b.N {
				st.NodeGroups[1].NodeCount = int64(2 + i%2)
				f.write(st)
				f.waitApplied(b, st, 30*time.Minute)
			}
		})
	}
}

// waitApplied waits until the reconciler reports st's folder at HEAD
// applied.
func (f *fixture) waitApplied(b *testing.B, st *intent.ClusterState, within time.Duration) {
	sn, _ := f.store.SnapshotHead()
	want, _ := sn.Hash(st.Dir)
	deadline := time.Now().Add(within)
	for {
		f.sink.mu.Lock()
		got := f.sink.applied[st.Cluster.UUID]
		f.sink.mu.Unlock()
		if got == want.String() {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("not applied within %s", within)
		}
		time.Sleep(time.Millisecond)
	}
}
