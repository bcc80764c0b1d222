package readmodel_test

import (
	"context"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/status"
)

// With autoscaling, the count the cluster-autoscaler chose (as Cluster API
// reports it) is the nodegroup's node_count, and the cluster completes at
// that count, without any commit.
func TestAutoscaledNodeCountComesFromClusterAPI(t *testing.T) {
	ctx := context.Background()
	store, _ := gitstore.Open(t.TempDir())
	db, err := readmodel.Open(ctx, t.TempDir()+"/keel.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	labels := map[string]string{"kube_tag": "v1.33.4", "auto_scaling_enabled": "true"}
	tmpl := intent.ClusterTemplate{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
		UUID: "11111111-1111-4111-8111-11111111111a", Name: "k8s", ProjectID: "p", COE: "kubernetes", ImageID: "img", ServerType: "vm", Labels: labels}
	c := intent.Cluster{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		UUID: "22222222-2222-4222-8222-22222222222a", Name: "auto", ProjectID: "p", ClusterTemplateID: tmpl.UUID,
		Labels: labels, StackID: "kube-autos", ClusterClass: "magnum-v0.1.0", CreatedAt: time.Now().UTC()}
	ng := func(n, role string, count int64) intent.NodeGroup {
		return intent.NodeGroup{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
			UUID: "33333333-3333-4333-8333-33333333" + map[string]string{"master": "ma01", "worker": "wo01"}[role], Name: n, ClusterID: c.UUID, ProjectID: "p", Role: role,
			IsDefault: true, NodeCount: count, MaxNodeCount: intent.Ptr(int64(10))}
	}
	st := &intent.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c,
		NodeGroups: []intent.NodeGroup{ng("default-master", "master", 1), ng("default-worker", "worker", 1)}}
	commit(t, store, "create", func(sn *gitstore.Snapshot) []gitstore.Change {
		ch, err := repo.WriteCluster(sn, &tmpl, st, intent.Facts{})
		if err != nil {
			t.Fatal(err)
		}
		tp, _ := repo.Document(intent.TemplatePath("p", tmpl.UUID), tmpl)
		return append(ch, tp)
	})
	if err := db.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	sn, _ := store.SnapshotHead()
	tree, _ := sn.Hash(st.Dir)
	db.Applied(ctx, c.UUID, tree.String(), 0, nil)
	one := status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}
	four := status.Replicas{Exists: true, Desired: 4, Current: 4, Ready: 4, UpToDate: 4, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}
	db.SetObservation(ctx, c.UUID, &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true,
		InfrastructureReady: true, ControlPlane: one, NodeGroups: map[string]status.Replicas{"default-worker": four}})

	v, err := db.GetClusterByUUID(ctx, c.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Result.Status != status.CreateComplete {
		t.Errorf("status %s (%s), want CREATE_COMPLETE at the autoscaler's count", v.Result.Status, v.Result.StatusReason)
	}
	for _, n := range v.NodeGroups {
		if n.Name == "default-worker" && n.NodeCount != 4 {
			t.Errorf("default-worker node_count %d, want the autoscaler's 4", n.NodeCount)
		}
	}
	if h, _ := store.Head(); h != sn.Commit() {
		t.Error("a scale event made a commit")
	}
}
