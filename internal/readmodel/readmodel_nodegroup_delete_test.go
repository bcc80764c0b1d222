package readmodel_test

import (
	"context"
	"testing"
	"time"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/internal/gitstore"
	"github.com/openkeel/keel/internal/intent"
	"github.com/openkeel/keel/internal/readmodel"
	"github.com/openkeel/keel/internal/readmodel/rmtest"
	"github.com/openkeel/keel/internal/repo"
	"github.com/openkeel/keel/internal/status"
)

// A nodegroup removed from Git stays visible as DELETE_IN_PROGRESS while
// Cluster API still has its MachineDeployment, and disappears once the
// MachineDeployment is gone.
func TestRemovedNodeGroupLeavesTheAPIWhenItsMachinesAreGone(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store, _ := gitstore.Open(t.TempDir())
			db, err := readmodel.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			tmpl := intent.ClusterTemplate{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
				ID: 1, UUID: "11111111-1111-4111-8111-111111111112", Name: "k8s", ProjectID: "p", COE: "kubernetes", ImageID: "img",
				ServerType: "vm", Labels: map[string]string{"kube_tag": "v1.33.4"}}
			c := intent.Cluster{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
				ID: 1, UUID: "22222222-2222-4222-8222-222222222223", Name: "c2", ProjectID: "p", ClusterTemplateID: tmpl.UUID,
				Labels: tmpl.Labels, StackID: "kube-ngdel", ClusterClass: "magnum-v0.1.0", CreatedAt: time.Now().UTC()}
			ng := func(id int64, n, role string) intent.NodeGroup {
				return intent.NodeGroup{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
					ID: id, UUID: "44444444-4444-4444-8444-44444444444" + string(rune('0'+id)), Name: n, ClusterID: c.UUID,
					ProjectID: "p", Role: role, IsDefault: n != "gpu", NodeCount: 1}
			}
			st := &repo.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c,
				NodeGroups: []intent.NodeGroup{ng(1, "default-master", "master"), ng(2, "default-worker", "worker"), ng(3, "gpu", "worker")}}
			write := func() {
				commit(t, store, "update", func(sn *gitstore.Snapshot) []gitstore.Change {
					tp, _ := repo.Document(intent.TemplatePath("p", tmpl.UUID), tmpl)
					ch, err := repo.WriteCluster(sn, &tmpl, st, compiler.Facts{})
					if err != nil {
						t.Fatal(err)
					}
					ch = append(ch, tp)
					if len(st.NodeGroups) == 2 {
						ch = append(ch, gitstore.Change{Path: intent.NodeGroupPath(st.Dir, "gpu"), Delete: true})
					}
					return ch
				})
				if err := db.Sync(ctx, store); err != nil {
					t.Fatal(err)
				}
			}
			names := func() map[string]string {
				v, err := db.GetClusterByUUID(ctx, c.UUID)
				if err != nil || v == nil {
					t.Fatalf("cluster: %v %v", v, err)
				}
				out := map[string]string{}
				for _, n := range v.NodeGroups {
					out[n.Name] = n.Status
				}
				return out
			}
			md := status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1}
			write()
			db.SetObservation(ctx, c.UUID, &status.Observation{Exists: true, ControlPlane: md,
				NodeGroups: map[string]status.Replicas{"default-worker": md, "gpu": md}})

			st.NodeGroups = st.NodeGroups[:2]
			write()
			if got := names()["gpu"]; got != status.DeleteInProgress {
				t.Fatalf("gpu right after its removal from Git: %q, want DELETE_IN_PROGRESS", got)
			}
			db.SetObservation(ctx, c.UUID, &status.Observation{Exists: true, ControlPlane: md,
				NodeGroups: map[string]status.Replicas{"default-worker": md}})
			if _, still := names()["gpu"]; still {
				t.Fatal("gpu is still listed after its MachineDeployment is gone")
			}
			if len(names()) != 2 {
				t.Fatalf("nodegroups: %v", names())
			}
		})
	}
}
