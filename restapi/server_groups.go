package restapi

// Nova server groups (docs/api.md): as Magnum's Cluster API driver, keel
// places each nodegroup's machines in a server group of the policy its
// server_group_policies label names, the control plane's named <stack_id>,
// a worker nodegroup's <stack_id>-<nodegroup>. The API ensures them when
// it accepts a cluster or a nodegroup (adopting a group of that name, so a
// retry never makes a second one), records their IDs as facts, and the
// reconciler deletes them once the cluster is gone.

import (
	"context"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/restapi/lookup"
	"github.com/openkeel/keel/schemas"
)

// serverGroupName is the Nova server group of a nodegroup of cluster
// stack, as the reference names it.
func serverGroupName(stack string, ng *intent.NodeGroup) string {
	if ng.Role == intent.RoleMaster {
		return stack
	}
	return stack + "-" + ng.Name
}

// ensureServerGroups records in f the server group of each nodegroup of st
// the change ensures groups for (l.serverGroupsFor) and that has none
// recorded. A nodegroup's policy is its server_group_policies label (which
// carries the cluster's), else the catalogue's default.
func (l *resolver) ensureServerGroups(ctx context.Context, st *intent.ClusterState, f *intent.Facts) error {
	for i := range st.NodeGroups {
		ng := &st.NodeGroups[i]
		if !l.serverGroupsFor[ng.Name] || f.ServerGroupIDs[ng.Name] != "" {
			continue
		}
		policy := l.cat.String(ng.Labels, schemas.LabelServerGroupPolicies)
		id, err := l.ServerGroup(ctx, serverGroupName(st.Cluster.StackID, ng), policy)
		if err != nil {
			return lookup.Error(err)
		}
		if id != "" {
			setKey(&f.ServerGroupIDs, ng.Name, id)
		}
	}
	return nil
}

// dropUnusedServerGroups deletes, after a change's commit or its failure,
// the server groups l created that HEAD's facts of the cluster folder dir
// do not record: every one of a change not committed, or one named for a
// stack id taken meanwhile. Best effort: a failure is logged and leaves
// an empty group in Nova; HEAD unreadable keeps them all (the safe
// mistake).
func (s *Server) dropUnusedServerGroups(ctx context.Context, who requester, l *resolver, dir string) {
	created := l.CreatedServerGroups()
	if len(created) == 0 {
		return
	}
	used := map[string]bool{}
	if dir != "" {
		sn, err := s.cfg.Store.SnapshotHead()
		if err != nil {
			return
		}
		if sn.Exists(dir) {
			f, err := intent.ReadFacts(sn, dir)
			if err != nil {
				return
			}
			for _, id := range f.ServerGroupIDs {
				used[id] = true
			}
		}
	}
	for name, id := range created {
		if used[id] {
			continue
		}
		if err := l.DeleteServerGroup(ctx, id); err != nil {
			who.Logger().Warn("deleting an unused server group failed, it is left in Nova", "server_group", name, "id", id, "err", err)
			continue
		}
		who.Logger().Info("deleted an unused server group", "server_group", name, "id", id)
	}
}
