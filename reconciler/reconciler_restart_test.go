package reconciler

import (
	"context"
	"path/filepath"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/mgmtcluster"
)

// The management cluster goes away mid-way: the reconciler retries without
// losing or pruning anything, and after kube-apiserver and keel restart
// (same etcd data, fresh process) it converges from the inventories: the
// changed cluster is updated, the removed one torn down, the rest untouched.
func TestConvergesAfterManagementClusterRestart(t *testing.T) {
	ctx := context.Background()
	etcdDir := filepath.Join(t.TempDir(), "etcd")
	mc, err := mgmtcluster.Start(ctx, mgmtcluster.Options{EtcdDataDir: etcdDir})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	rec, err := New(f.store, mc.Client, f.sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept, changed, removed := f.cluster("kept", 1), f.cluster("changed", 1), f.cluster("removed", 1)
	f.write(kept)
	f.write(changed)
	f.write(removed)
	rec.SyncAll(ctx)

	if err := mc.Stop(); err != nil {
		t.Fatal(err)
	}
	changed.NodeGroups[1].NodeCount = 4
	f.write(changed)
	f.commit("remove a cluster", gitstore.Change{Path: removed.Dir, Delete: true})
	rec.Sync(ctx)    // fails: nothing answers
	rec.SyncAll(ctx) // cannot list inventories: must not tear anything down
	if len(rec.pending) == 0 {
		t.Fatal("the failed folders are not kept for a retry")
	}

	mc2, err := mgmtcluster.Start(ctx, mgmtcluster.Options{EtcdDataDir: etcdDir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mc2.Stop() }() // the test is over; a failed stop changes nothing
	rec2, err := New(f.store, mc2.Client, f.sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) (*clusterv1.Cluster, error) {
		var cl clusterv1.Cluster
		err := mc2.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: name}, &cl)
		return &cl, err
	}
	rec2.SyncAll(ctx)
	if cl, err := get(kept.Cluster.StackID); err != nil || cl.DeletionTimestamp != nil {
		t.Fatalf("the untouched cluster was lost or deleted: %v", err)
	}
	cl, err := get(changed.Cluster.StackID)
	if err != nil {
		t.Fatal(err)
	}
	if got := *cl.Spec.Topology.Workers.MachineDeployments[0].Replicas; got != 4 {
		t.Errorf("the changed cluster has %d replicas, want 4", got)
	}
	if _, err := get(removed.Cluster.StackID); !apierrors.IsNotFound(err) {
		t.Errorf("the removed cluster is still there (err %v)", err)
	}
}
