package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// Two nodegroups created one after the other before the first completes
// (Terraform creates them in parallel) both go through CREATE_IN_PROGRESS
// to CREATE_COMPLETE: the second one's commit does not turn the first into
// an update. The cluster's next update is an update for both (the resized one in
// progress, the other settled).
func TestNodeGroupsCreatedTogetherAreBothCreated(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, dsn, "c5", "kube-ngpair", map[string]string{"kube_tag": "v1.33.4"},
				[2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			c := f.st.Cluster
			one := status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}
			statuses := func() map[string]string {
				t.Helper()
				out := map[string]string{}
				for _, n := range f.view().NodeGroups {
					out[n.Name] = n.Status
				}
				return out
			}
			applied := func() {
				t.Helper()
				f.db.Applied(ctx, c.UUID, f.view().DesiredRevision, 0, nil)
			}
			observe := func(groups ...string) {
				t.Helper()
				ngs := map[string]status.Replicas{}
				for _, g := range groups {
					ngs[g] = one
				}
				f.db.SetObservation(ctx, c.UUID, &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true,
					InfrastructureReady: true, ControlPlane: one, NodeGroups: ngs})
			}

			f.write(status.OpCreate)
			applied()
			observe("default-worker")

			add := func(id int64, uuid, name string) {
				t.Helper()
				ng := f.st.NodeGroups[1]
				ng.ID, ng.UUID, ng.Name, ng.IsDefault = id, uuid, name, false
				f.st.NodeGroups = append(f.st.NodeGroups, ng)
				f.write("nodegroup-create")
			}
			add(3, "55555555-5555-4555-8555-555555555551", "spread")
			applied()
			add(4, "55555555-5555-4555-8555-555555555552", "volumes")
			if ngs := statuses(); ngs["spread"] != status.CreateInProgress || ngs["volumes"] != status.CreateInProgress {
				t.Fatalf("both being created: %v, want spread and volumes CREATE_IN_PROGRESS", ngs)
			}
			applied()
			observe("default-worker", "spread", "volumes")
			if ngs := statuses(); ngs["spread"] != status.CreateComplete || ngs["volumes"] != status.CreateComplete {
				t.Fatalf("both created: %v, want spread and volumes CREATE_COMPLETE", ngs)
			}

			f.st.NodeGroups[2].NodeCount = 2
			f.write("resize")
			applied()
			if ngs := statuses(); ngs["spread"] != status.UpdateInProgress || ngs["volumes"] != status.UpdateComplete {
				t.Fatalf("spread resized: %v, want spread UPDATE_IN_PROGRESS and volumes, settled, UPDATE_COMPLETE", ngs)
			}
		})
	}
}
