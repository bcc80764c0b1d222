package reconciler

import (
	"context"
	"path"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// A cluster deleted before the reconciler applied anything of it is
// reported gone (the read model would show it DELETE_IN_PROGRESS for
// ever), with nothing applied: whether its folder came and went between two
// syncs, or its first apply failed before it left.
func TestClusterRemovedBeforeItsFirstApplyIsReportedGone(t *testing.T) {
	for _, tc := range []struct {
		name string
		// run writes the doomed cluster st, and other, syncing as it goes.
		run func(f *fixture, st, other *intent.ClusterState)
	}{
		{"created and removed between two syncs", func(f *fixture, st, other *intent.ClusterState) {
			f.write(st)
			f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
		}},
		{"created, changed and removed among other commits", func(f *fixture, st, other *intent.ClusterState) {
			f.write(st)
			st.NodeGroups[1].NodeCount = 2
			f.write(st)
			f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
			f.write(other)
		}},
		{"removed after a first apply that failed", func(f *fixture, st, other *intent.ClusterState) {
			broken := gitstore.Change{Path: path.Join(intent.RenderedPath(st.Dir), compiler.KustomizationFile), Data: []byte("resources:\n- missing.yaml\n")}
			f.write(st, broken)
			f.rec.Sync(context.Background())
			if f.sink.errors[st.Cluster.UUID] == nil {
				t.Fatal("the broken rendering was applied")
			}
			f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			st, other := f.cluster("doomed", 1), f.cluster("bystander", 1)
			f.rec.Sync(context.Background()) // as Run's first pass: the next diffs commits
			tc.run(f, st, other)
			f.rec.Sync(context.Background())
			if !f.sink.isGone(st.Cluster.UUID) {
				t.Fatal("the cluster was not reported gone")
			}
			err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: inventoryName(st.Cluster.StackID)}, &corev1.ConfigMap{})
			if !apierrors.IsNotFound(err) {
				t.Fatalf("something of the removed cluster was applied: its inventory: %v", err)
			}
			if f.sink.isGone(other.Cluster.UUID) {
				t.Fatal("a cluster still in Git was reported gone")
			}
		})
	}
}
