package reconciler

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// A folder whose first applies fail again and again keeps a readable
// (empty) inventory, so that it is applied once Git is fixed. The status
// recorder wrote the empty inventory on the first failure and, by leaving
// the data out of its next server-side apply, deleted it on the second:
// every later pass then failed on reading it, for good.
func TestInventorySurvivesRepeatedFirstFailures(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("failing", 1)
	dir := intent.RenderedPath(st.Dir)
	bad := "apiVersion: example.keel.openkeel.io/v1\nkind: NoSuchKind\nmetadata:\n  name: nope\n  namespace: magnum-system\n"
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cluster.yaml\n- bad.yaml\n"
	f.write(st, gitstore.Change{Path: path.Join(dir, "bad.yaml"), Data: []byte(bad)},
		gitstore.Change{Path: path.Join(dir, compiler.KustomizationFile), Data: []byte(kust)})
	for i := 0; i < 3; i++ {
		f.rec.Sync(ctx)
		time.Sleep(250 * time.Millisecond) // past the retry backoff (RetryMax 200 ms)
	}
	if f.sink.errors[st.Cluster.UUID] == nil {
		t.Fatal("the bad folder applied")
	}
	if _, err := loadInventory(ctx, env.Client, st.Cluster.StackID); err != nil {
		t.Fatalf("after repeated failures: %v", err)
	}
	f.write(st)
	f.eventually("the fixed folder to be applied", func() bool {
		f.sink.mu.Lock()
		defer f.sink.mu.Unlock()
		return f.sink.applied[st.Cluster.UUID] != ""
	})
}
