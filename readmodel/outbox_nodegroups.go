package readmodel

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// Nodegroup notifications (magnum.nodegroup.{create,update,delete}, an
// addition: Magnum sends none). A commit that adds, changes or removes a
// nodegroup of an existing cluster records the operation in
// nodegroups.pending_action and notifies it pending, in the projection's
// transaction; the status change that settles the nodegroup notifies
// success or failure and clears it (a guarded update: once); a deleted
// nodegroup's success goes with its row. The nodegroups of a cluster's own
// create or delete are not notified apart: the cluster's notifications
// say it.

// priorNodeGroup is a nodegroup row as the projection found it.
type priorNodeGroup struct {
	Doc   string `db:"doc"`
	InGit int    `db:"in_git"`
}

func (p *projector) priorNodeGroups(ctx context.Context, clusterUUID string) (map[string]priorNodeGroup, error) {
	var rows []struct {
		UUID string `db:"uuid"`
		priorNodeGroup
	}
	if err := p.tx.SelectContext(ctx, &rows, p.d.q(`SELECT uuid, doc, in_git FROM nodegroups WHERE cluster_uuid = ?`), clusterUUID); err != nil {
		return nil, err
	}
	out := make(map[string]priorNodeGroup, len(rows))
	for _, r := range rows {
		out[r.UUID] = r.priorNodeGroup
	}
	return out, nil
}

// nodeGroupsStarted starts the operation of each nodegroup of c the
// commit created (new, or back in Git), changed or removed.
func (p *projector) nodeGroupsStarted(ctx context.Context, c *intent.Cluster, prior map[string]priorNodeGroup, ngs []intent.NodeGroup) error {
	inGit := map[string]bool{}
	for i := range ngs {
		ng := &ngs[i]
		inGit[ng.UUID] = true
		was, ok := prior[ng.UUID]
		doc, _ := json.Marshal(ng)
		action := oslo.ActionCreate
		switch {
		case ok && was.InGit == 1 && was.Doc == string(doc):
			continue
		case ok && was.InGit == 1:
			action = oslo.ActionUpdate
		}
		if err := p.nodeGroupStarted(ctx, c, ng, action); err != nil {
			return err
		}
	}
	gone := make([]string, 0, len(prior))
	for uuid, was := range prior {
		if !inGit[uuid] && was.InGit == 1 {
			gone = append(gone, uuid)
		}
	}
	sort.Strings(gone)
	for _, uuid := range gone {
		var ng intent.NodeGroup
		if err := json.Unmarshal([]byte(prior[uuid].Doc), &ng); err != nil {
			return err
		}
		if err := p.nodeGroupStarted(ctx, c, &ng, oslo.ActionDelete); err != nil {
			return err
		}
	}
	return nil
}

func (p *projector) nodeGroupStarted(ctx context.Context, c *intent.Cluster, ng *intent.NodeGroup, action string) error {
	if _, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE nodegroups SET pending_action = ? WHERE uuid = ?`), action, ng.UUID); err != nil {
		return err
	}
	if p.old == nil {
		return nil
	}
	from, requestID := originOf(p.info)
	src := eventSource{action: action, outcome: oslo.OutcomePending, origin: from, requestID: requestID, at: p.at}
	st := strings.ToUpper(action) + "_IN_PROGRESS"
	data := nodeGroupData(ng, c, st, "", nil)
	return notifyNodeGroup(ctx, p.tx, p.d.q, c.UUID, status.Result{Status: status.UpdateInProgress}, &data, src)
}

// notifyNodeGroup records a notification about the nodegroup ng of
// cluster clusterUUID, whose status is cluster.
func notifyNodeGroup(ctx context.Context, ex sqlx.ExtContext, q func(string) string, clusterUUID string, cluster status.Result, ng *oslo.NodeGroupData, src eventSource) error {
	e, err := clusterEvent(ctx, ex, q, clusterUUID, cluster, src)
	if err != nil || e == nil {
		return err
	}
	e.NodeGroup = ng
	return insertEvent(ctx, ex, q, clusterUUID, e)
}

// nodeGroupData is Magnum's nodegroup as the API shows it (restapi's
// nodegroup detail), with the given status.
func nodeGroupData(ng *intent.NodeGroup, c *intent.Cluster, st, reason string, addrs []string) oslo.NodeGroupData {
	version := NodeGroupVersion(ng, c)
	labels := ng.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	return oslo.NodeGroupData{
		UUID: ng.UUID, Name: ng.Name, ClusterID: c.UUID, ProjectID: ng.ProjectID, DockerVolumeSize: ng.DockerVolumeSize,
		Labels: labels, FlavorID: ng.FlavorID, ImageID: ng.ImageID, NodeAddresses: orEmpty(addrs), NodeCount: ng.NodeCount,
		Role: ng.Role, MaxNodeCount: ng.MaxNodeCount, MinNodeCount: ng.MinNodeCount, IsDefault: ng.IsDefault,
		StackID: c.StackID, Status: st, StatusReason: optional(reason), Version: optional(version),
		CreatedAt: magnumTime(&ng.CreatedAt), UpdatedAt: magnumTime(ng.UpdatedAt),
	}
}

// nodeGroupsSettled notifies, once each, the outcome of every nodegroup
// create or update of v whose status settled.
func (d *DB) nodeGroupsSettled(ctx context.Context, v *ClusterView) error {
	var pending []struct {
		UUID   string `db:"uuid"`
		Action string `db:"pending_action"`
	}
	if err := d.db.SelectContext(ctx, &pending, d.q(`SELECT uuid, pending_action FROM nodegroups
		WHERE cluster_uuid = ? AND in_git = 1 AND pending_action <> '' ORDER BY id`), v.UUID); err != nil {
		return err
	}
	for _, pn := range pending {
		for i := range v.NodeGroups {
			if ng := &v.NodeGroups[i]; ng.UUID == pn.UUID {
				if err := d.nodeGroupSettled(ctx, v, ng, pn.Action); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (d *DB) nodeGroupSettled(ctx context.Context, v *ClusterView, ng *NodeGroupView, action string) error {
	outcome := map[string]string{"COMPLETE": oslo.OutcomeSuccess, "FAILED": oslo.OutcomeFailure}[statusResult(ng.Status)]
	if outcome == "" {
		return nil
	}
	reason := ""
	if statusResult(v.Result.Status) == statusResult(ng.Status) {
		reason = v.Result.StatusReason
	}
	data := nodeGroupData(&ng.NodeGroup, &v.Cluster, ng.Status, reason, ng.Addresses)
	return d.inTx(ctx, func(tx *sqlx.Tx) error {
		r, err := tx.ExecContext(ctx, d.q(`UPDATE nodegroups SET pending_action = '' WHERE uuid = ? AND pending_action = ?`), ng.UUID, action)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil || n == 0 {
			return err
		}
		src := eventSource{action: action, outcome: outcome, system: true, at: time.Now().UTC()}
		return notifyNodeGroup(ctx, tx, d.q, v.UUID, v.Result, &data, src)
	})
}

// statusResult is COMPLETE, FAILED or IN_PROGRESS of a Magnum status.
func statusResult(s string) string {
	_, r, _ := strings.Cut(s, "_")
	return r
}

// nodeGroupGone removes the row of a nodegroup that left Git once Cluster
// API shows its machines gone and, when its delete was notified pending,
// notifies its success in the same transaction.
func (d *DB) nodeGroupGone(ctx context.Context, v *ClusterView, name string) error {
	return d.inTx(ctx, func(tx *sqlx.Tx) error {
		var row struct {
			Doc    string `db:"doc"`
			Action string `db:"pending_action"`
		}
		if err := tx.GetContext(ctx, &row, d.q(`SELECT doc, pending_action FROM nodegroups WHERE cluster_uuid = ? AND name = ? AND in_git = 0`), v.UUID, name); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, d.q(`DELETE FROM nodegroups WHERE cluster_uuid = ? AND name = ? AND in_git = 0`), v.UUID, name); err != nil {
			return err
		}
		if row.Action != oslo.ActionDelete {
			return nil
		}
		var ng intent.NodeGroup
		if err := json.Unmarshal([]byte(row.Doc), &ng); err != nil {
			return err
		}
		data := nodeGroupData(&ng, &v.Cluster, status.DeleteComplete, "", nil)
		src := eventSource{action: oslo.ActionDelete, outcome: oslo.OutcomeSuccess, system: true, at: time.Now().UTC()}
		return notifyNodeGroup(ctx, tx, d.q, v.UUID, v.Result, &data, src)
	})
}

// NodeGroupVersion is a nodegroup's Kubernetes version as Magnum shows it:
// its own kube_tag label, else its cluster's.
func NodeGroupVersion(ng *intent.NodeGroup, c *intent.Cluster) string {
	if v := ng.Labels[schemas.LabelKubeTag]; v != "" {
		return v
	}
	return c.Labels[schemas.LabelKubeTag]
}
