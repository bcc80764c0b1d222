package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A credential rotation applied on a settled cluster stays
// UPDATE_IN_PROGRESS with the reconciler's reason while the retired
// credentials wait (reported before the apply, as the reconciler does),
// and completes once the reason is cleared, on SQLite and PostgreSQL.
func TestRotationWaitsForRetirement(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, dsn, "c1", "kube-abcde", map[string]string{"kube_tag": "v1.33.4"},
				[2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			want := func(s, reason string) {
				t.Helper()
				if v := f.view(); v == nil || v.Result.Status != s || v.Result.StatusReason != reason {
					t.Fatalf("view %+v, want %s (%q)", v, s, reason)
				}
			}
			f.write(status.OpCreate)
			f.settle(1, nil)
			want(status.CreateComplete, "")

			// What a rotation changes: the stored credential and updated_at.
			f.st.Cluster.UpdatedAt = &f.st.Cluster.CreatedAt
			f.write(status.OpRotateCredential, gitstore.Change{Path: intent.CredentialPath(f.st.Dir), Data: []byte("sops: {}\n")})
			waiting := "Rotating the application credential: waiting for the test's consumers"
			f.db.Retiring(ctx, f.st.Cluster.UUID, waiting)
			f.settle(1, nil)
			want(status.UpdateInProgress, waiting)
			f.db.Retiring(ctx, f.st.Cluster.UUID, "")
			want(status.UpdateComplete, "")
		})
	}
}
