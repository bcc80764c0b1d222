package readmodel_test

import (
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/readmodel/rmtest"
)

// A read-only record of keel import that leaves Git (a revert of the
// import) leaves the read model with it: nothing of it was applied, so no
// reconciler will report it gone, and it must not stay DELETE_IN_PROGRESS
// for ever. Nor is it a cluster deletion to notify.
func TestRemovedImportRecordLeavesTheReadModel(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			f := newNotifyingFixture(t, dsn, [2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			f.st.Cluster.Imported = &intent.Imported{From: "magnum", Driver: "heat", Status: "CREATE_COMPLETE", Reason: "imported"}
			f.write("import")
			if v := f.view(); v == nil || v.Result.Status != "CREATE_COMPLETE" {
				t.Fatalf("the imported record is %+v, want it CREATE_COMPLETE", v)
			}
			before := len(f.outboxLines(func(readmodel.Notification) string { return "" }))
			f.remove()
			f.sync()
			if v := f.view(); v != nil {
				t.Fatalf("the record left Git but the API still shows it, %s", v.Result.Status)
			}
			if clusters, nodes, err := f.db.ClusterStats(f.ctx, readmodel.Scope{All: true}); err != nil || clusters+nodes != 0 {
				t.Errorf("/v1/stats still counts %d clusters and %d nodes (%v), want none", clusters, nodes, err)
			}
			if after := len(f.outboxLines(func(readmodel.Notification) string { return "" })); after != before {
				t.Errorf("removing the record queued %d notifications, want none", after-before)
			}
		})
	}
}
