package reconciler

import (
	"context"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// A cluster removed from Git before anything of it was applied has no
// inventory, so its teardown has nothing to delete and nothing naming its
// UUID; yet the read model shows it DELETE_IN_PROGRESS until told it is
// gone. That happens when a cluster is deleted while the reconciler has
// not reached it yet: created and removed between two syncs (a burst of
// API calls during a long pass: a diff of the two ends does not even show
// the folder), or removed after a first apply that failed before its
// inventory was saved. Git still has the UUID, in a commit that had the
// folder: sync remembers it (rememberLeft) and teardown reports it.

// rememberLeft records, by inventory id, the UUIDs of clusters whose
// folders left Git.
func (r *Reconciler) rememberLeft(left map[string]string) {
	for u, uuid := range left {
		if id, err := unitID(u); err == nil && uuid != "" {
			r.left.set(id, uuid)
		}
	}
}

// reportLeft tells the sink that a cluster with nothing applied is gone.
func (r *Reconciler) reportLeft(ctx context.Context, id string) {
	uuid := r.left.get(id)
	r.left.delete(id)
	if uuid != "" && r.sink != nil {
		r.sink.Gone(ctx, uuid)
	}
}

// clusterUUID is the UUID of the cluster folder unit in the first of snaps
// that has it ("" for a ClusterClass or an imported read-only record,
// which the read model drops with its folder).
func clusterUUID(unit string, snaps ...*gitstore.Snapshot) string {
	if isClassUnit(unit) {
		return ""
	}
	for _, sn := range snaps {
		if sn == nil || !sn.Exists(unit) {
			continue
		}
		c, err := intent.ReadClusterDocument(sn, unit)
		if err != nil || c.ReadOnly() {
			return ""
		}
		return c.UUID
	}
	return ""
}
