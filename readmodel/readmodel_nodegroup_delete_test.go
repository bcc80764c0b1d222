package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A nodegroup removed from Git stays visible as DELETE_IN_PROGRESS while
// Cluster API still has its MachineDeployment, and disappears once the
// MachineDeployment is gone.
func TestRemovedNodeGroupLeavesTheAPIWhenItsMachinesAreGone(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, dsn, "c2", "kube-ngdel", map[string]string{"kube_tag": "v1.33.4"},
				[2]string{"default-master", "master"}, [2]string{"default-worker", "worker"}, [2]string{"gpu", "worker"})
			db, st, c := f.db, f.st, f.st.Cluster
			write := func() {
				if len(st.NodeGroups) == 2 {
					f.write("update", gitstore.Change{Path: intent.NodeGroupPath(st.Dir, "gpu"), Delete: true})
					return
				}
				f.write("update")
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
			md := status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}
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
