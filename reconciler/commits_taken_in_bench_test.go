package reconciler

import (
	"context"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/repo"
)

// BenchmarkTenCommitsApplied measures ten changes written one commit each,
// as ten API calls in a row make them, with the reconciler running: from
// the first commit to the last applied. The commits after the first come
// while the first is applied (take_commits.go):
//
//	go test -run '^$' -bench TenCommitsApplied -benchtime 10x -count 4 ./reconciler
func BenchmarkTenCommitsApplied(b *testing.B) {
	f := newFixture(b)
	states := f.populate(b, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = f.rec.Run(ctx) }()
	f.awaitApplied(b, states)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, st := range states {
			st.NodeGroups[1].NodeCount = int64(1 + (i+1)%3)
			_, err := f.store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
				ch, err := repo.WriteCluster(sn, &f.tmpl, st, intent.Facts{})
				return &gitstore.Commit{Subject: "resize", Author: gitstore.Signature{Name: "b", Email: "b@x"}, Changes: ch}, err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		f.awaitApplied(b, states)
	}
}

// awaitApplied waits until the sink holds every cluster's revision at HEAD.
func (f *fixture) awaitApplied(b *testing.B, states []*intent.ClusterState) {
	b.Helper()
	sn, err := f.store.SnapshotHead()
	if err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Millisecond) {
		left := 0
		for _, st := range states {
			want, _ := sn.Hash(st.Dir)
			if f.sink.appliedRevision(st.Cluster.UUID) != want.String() {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d clusters not applied within 60 s", left)
		}
	}
}
