package reconciler

import (
	"context"
	"testing"
	"time"

	"github.com/openkeel/keel/intent"
)

// A change's delay starts when its commit was written, not when the
// reconciler, busy applying earlier changes, got round to reading it; of
// several commits read at once, each folder's delay starts at the first
// commit that changed it, the newest included.
func TestChangeAppliedDelayStartsAtTheCommit(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a, b, c := f.cluster("first-commit", 1), f.cluster("second-commit", 1), f.cluster("last-commit", 1)
	f.write(a)
	f.write(b)
	f.write(c)
	f.rec.Sync(ctx)
	old, _ := f.store.SnapshotHead()

	a.NodeGroups[1].NodeCount = 2
	f.write(a)
	first, _ := f.store.Head()
	time.Sleep(50 * time.Millisecond)
	b.NodeGroups[1].NodeCount = 2
	f.write(b)
	second, _ := f.store.Head()
	a.NodeGroups[1].NodeCount = 3 // changed again: still from its first commit
	f.write(a)
	c.NodeGroups[1].NodeCount = 2
	f.write(c)
	last, _ := f.store.Head()
	sn, _ := f.store.SnapshotHead()

	ua, ub, uc := intent.ClusterDirOf(&a.Cluster), intent.ClusterDirOf(&b.Cluster), intent.ClusterDirOf(&c.Cluster)
	since, _ := f.rec.changedSince(old, sn, map[string]bool{ua: true, ub: true, uc: true}, time.Now().Add(time.Hour))
	wantA, okA := f.store.WrittenAt(first)
	wantB, okB := f.store.WrittenAt(second)
	wantC, okC := f.store.WrittenAt(last)
	if !okA || !okB || !okC {
		t.Fatalf("the store does not know when it wrote its commits: %v %v %v", okA, okB, okC)
	}
	if !since[ua].Equal(wantA) || !since[ub].Equal(wantB) || !since[uc].Equal(wantC) {
		t.Fatalf("changes dated %v, %v and %v, want their commits' %v, %v and %v", since[ua], since[ub], since[uc], wantA, wantB, wantC)
	}
}
