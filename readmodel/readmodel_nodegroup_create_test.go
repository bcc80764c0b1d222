package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A nodegroup added to a running cluster goes through CREATE_IN_PROGRESS to
// CREATE_COMPLETE, as in Magnum (clients wait for it), while the cluster
// shows the update.
func TestAddedNodeGroupIsCreatedNotUpdated(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, dsn, "c4", "kube-ngadd", map[string]string{"kube_tag": "v1.33.4"},
				[2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			c := f.st.Cluster
			one := status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}
			statuses := func() (string, map[string]string) {
				t.Helper()
				v := f.view()
				out := map[string]string{}
				for _, n := range v.NodeGroups {
					out[n.Name] = n.Status
				}
				return v.Result.Status, out
			}
			applied := func() {
				t.Helper()
				v := f.view()
				f.db.Applied(ctx, c.UUID, v.DesiredRevision, 0, nil)
			}

			f.write(status.OpCreate)
			applied()
			f.db.SetObservation(ctx, c.UUID, &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true,
				InfrastructureReady: true, ControlPlane: one, NodeGroups: map[string]status.Replicas{"default-worker": one}})
			if cs, ngs := statuses(); cs != status.CreateComplete || ngs["default-worker"] != status.CreateComplete {
				t.Fatalf("after create: cluster %s, nodegroups %v", cs, ngs)
			}

			gpu := f.st.NodeGroups[1]
			gpu.ID, gpu.UUID, gpu.Name, gpu.IsDefault = 3, "44444444-4444-4444-8444-444444444444", "gpu", false
			f.st.NodeGroups = append(f.st.NodeGroups, gpu)
			f.write("nodegroup-create")
			applied()
			cs, ngs := statuses()
			// default-worker, untouched and settled, is UPDATE_COMPLETE.
			if cs != status.UpdateInProgress || ngs["gpu"] != status.CreateInProgress || ngs["default-worker"] != status.UpdateComplete {
				t.Fatalf("while the nodegroup is created: cluster %s, nodegroups %v; want UPDATE_IN_PROGRESS, gpu CREATE_IN_PROGRESS", cs, ngs)
			}
			f.db.SetObservation(ctx, c.UUID, &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true,
				InfrastructureReady: true, ControlPlane: one, NodeGroups: map[string]status.Replicas{"default-worker": one, "gpu": one}})
			if cs, ngs := statuses(); cs != status.UpdateComplete || ngs["gpu"] != status.CreateComplete || ngs["default-worker"] != status.UpdateComplete {
				t.Fatalf("once its machines run: cluster %s, nodegroups %v; want UPDATE_COMPLETE, gpu CREATE_COMPLETE", cs, ngs)
			}

			// The next update of the cluster is an update for gpu too.
			f.st.NodeGroups[2].NodeCount = 2
			f.write("resize")
			applied()
			if _, ngs := statuses(); ngs["gpu"] != status.UpdateInProgress {
				t.Fatalf("gpu resized: %s, want UPDATE_IN_PROGRESS", ngs["gpu"])
			}
		})
	}
}
