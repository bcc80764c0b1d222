package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// An update whose apply raised the CAPI Cluster's generation is not
// completed by an observation of the previous generation (its counts are
// the old spec's, all settled), nor before the topology controller has
// reconciled the new one; on SQLite and PostgreSQL.
func TestUpdateNotCompletedByAnObservationBeforeTheApply(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, dsn, "c1", "kube-gen01", map[string]string{"kube_tag": "v1.33.4"},
				[2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			c := f.st.Cluster
			settled := func(gen, topo int64) *status.Observation {
				r := status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}
				return &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
					ControlPlane: r, NodeGroups: map[string]status.Replicas{"default-worker": r}, Generation: gen, TopologyGeneration: topo}
			}
			want := func(s string) {
				t.Helper()
				if v := f.view(); v == nil || v.Result.Status != s {
					t.Fatalf("status %+v, want %s", v, s)
				}
			}
			tree := func() string {
				sn, _ := f.store.SnapshotHead()
				h, _ := sn.Hash(f.st.Dir)
				return h.String()
			}
			f.write(status.OpCreate)
			db := f.db
			db.SetObservation(ctx, c.UUID, settled(1, 1))
			db.Applied(ctx, c.UUID, tree(), 1, nil)
			want(status.CreateComplete)

			// A change of no count and no version (as a new image is).
			f.st.Cluster.Labels = map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "40"}
			f.write(status.OpUpdate)
			db.Applied(ctx, c.UUID, tree(), 2, nil)
			want(status.UpdateInProgress) // the stored observation is of generation 1
			db.SetObservation(ctx, c.UUID, settled(2, 1))
			want(status.UpdateInProgress) // the topology controller has not reconciled it
			db.SetObservation(ctx, c.UUID, settled(2, 2))
			want(status.UpdateComplete)
		})
	}
}
