package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A teardown step that gave up shows DELETE_FAILED with its reason, on
// SQLite and PostgreSQL, until the teardown moves on (DELETE_IN_PROGRESS
// again) or the cluster is gone.
func TestDeleteFailedUntilTheTeardownMovesOn(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, dsn, "c1", "kube-abcde", nil, [2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			db, uuid := f.db, f.st.Cluster.UUID
			want := func(s, reason string) {
				t.Helper()
				v := f.view()
				if v == nil || v.Result.Status != s || v.Result.StatusReason != reason {
					t.Fatalf("view %+v, want %s (%q)", v, s, reason)
				}
			}
			f.write(status.OpCreate)
			f.remove()
			f.sync()
			db.Deleting(ctx, uuid, "Deleting the load balancers lb-1 of the cluster's Services")
			want(status.DeleteInProgress, "Deleting the load balancers lb-1 of the cluster's Services")
			db.DeleteFailed(ctx, uuid, "Timeout waiting for the load balancers lb-1 to be deleted.")
			want(status.DeleteFailed, "Timeout waiting for the load balancers lb-1 to be deleted.")
			db.Deleting(ctx, uuid, "Waiting for Cluster API")
			want(status.DeleteInProgress, "Waiting for Cluster API")
			db.DeleteFailed(ctx, uuid, "again")
			db.Gone(ctx, uuid)
			if v := f.view(); v != nil {
				t.Fatalf("a deleted cluster is still in the read model: %s", v.Result.Status)
			}
		})
	}
}
