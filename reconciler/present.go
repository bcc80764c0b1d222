package reconciler

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/openkeel/keel/gitstore"
)

// A cluster removed from Git before its first apply, while no pass of this
// process was looking (keel was down, or a leader was handing over), shows
// in no diff: the first pass of a process has nothing to diff against, and
// no inventory names it. After each complete listing (start-up and every
// resync) the sink hears what exists, and drops the deleted clusters that
// are in neither list.

// reportPresent tells the sink which folders are in Git at sn or have an
// inventory (units, allUnits') and which clusters have one (invs, the
// complete list).
func (r *Reconciler) reportPresent(ctx context.Context, sn *gitstore.Snapshot, units []string, invs map[string]*Inventory) {
	if r.sink == nil {
		return
	}
	folders := make(map[string]bool, len(units))
	for _, u := range units {
		folders[u] = true
	}
	applied := make(map[string]bool, len(invs))
	for _, inv := range invs {
		if inv.ClusterUUID != "" {
			applied[inv.ClusterUUID] = true
		}
	}
	at := sn.Commit()
	reached := func(commit string) bool { return r.store.Reaches(at, plumbing.NewHash(commit)) }
	r.sink.Present(ctx, folders, applied, reached)
}
