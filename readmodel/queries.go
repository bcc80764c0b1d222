package readmodel

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// ClusterView is a cluster as the API shows it: intent plus status.
type ClusterView struct {
	intent.Cluster
	NodeGroups []NodeGroupView
	Result     status.Result
	Observed   *status.Observation
	InGit      bool
	// Dir is the cluster's folder in the repository.
	Dir string
	// DesiredRevision is the tree hash of the folder in Git HEAD;
	// AppliedRevision the one the reconciler last applied (equal when in
	// sync); ApplyError why the last attempt failed.
	DesiredRevision, AppliedRevision, ApplyError string
	desiredRevision                              string
	// Changed is when the cluster last changed, as Magnum's updated_at: the
	// latest of an API update of its document, the start of an update
	// operation and a change of its status seen by the observer; nil
	// before any.
	Changed *time.Time
}

// NodeGroupView is a nodegroup with its status.
type NodeGroupView struct {
	intent.NodeGroup
	Status       string
	StatusReason string
	// ObservedNodeCount is the count Cluster API reports (the autoscaler's
	// choice for an autoscaled nodegroup); nil when not observed yet.
	ObservedNodeCount *int64
	Addresses         []string
}

type clusterRow struct {
	UUID             string         `db:"uuid"`
	Doc              string         `db:"doc"`
	Dir              string         `db:"dir"`
	InGit            int            `db:"in_git"`
	Operation        string         `db:"operation"`
	DesiredRevision  string         `db:"desired_revision"`
	OperationStarted string         `db:"operation_started"`
	Applied          sql.NullString `db:"applied_revision"`
	ApplyError       sql.NullString `db:"apply_error"`
	ApplyStalled     sql.NullInt64  `db:"apply_stalled"`
	Completed        sql.NullString `db:"completed_revision"`
	DeletingReason   sql.NullString `db:"deleting_reason"`
	DeleteFailed     sql.NullInt64  `db:"delete_failed"`
	RetiringReason   sql.NullString `db:"retiring_reason"`
	AppliedGen       sql.NullInt64  `db:"applied_generation"`
	CAPI             sql.NullString `db:"capi"`
	StatusChangedAt  sql.NullString `db:"status_changed_at"`
}

const clusterSelect = `SELECT c.uuid, c.doc, c.dir, c.in_git, c.operation, c.desired_revision, c.operation_started,
	o.applied_revision, o.apply_error, o.apply_stalled, o.completed_revision, o.deleting_reason, o.delete_failed, o.retiring_reason, o.applied_generation, o.capi, o.status_changed_at
	FROM clusters c LEFT JOIN observed o ON o.uuid = c.uuid`

// Scope limits queries to a project, or to every project (admin with
// all_tenants).
type Scope struct {
	ProjectID string
	All       bool
	// PublicHidden adds the public templates that are hidden to the
	// public ones a project sees (Magnum shows them to admins only).
	PublicHidden bool
}

// publicTemplates is the condition of the other projects' templates the
// scope sees.
func (s Scope) publicTemplates() string {
	if s.PublicHidden {
		return "public = 1"
	}
	return "(public = 1 AND hidden = 0)"
}

func (s Scope) where(col string) (string, []any) {
	if s.All {
		return "1 = 1", nil
	}
	return col + " = ?", []any{s.ProjectID}
}

// ListClusters returns the clusters of a scope in creation order.
func (d *DB) ListClusters(ctx context.Context, s Scope) ([]*ClusterView, error) {
	w, args := s.where("c.project_id")
	return d.clusters(ctx, clusterSelect+" WHERE "+w+" ORDER BY c.id", args...)
}

// Page is a window of a list in creation (id) order: at most Limit items
// after the one whose uuid is Marker ("" from the first), from the last
// when Desc.
type Page struct {
	Marker string
	Limit  int
	Desc   bool
}

// ErrMarkerNotFound is a page's marker that is no item of the scope.
var ErrMarkerNotFound = errors.New("read model: marker not found")

// ListClustersPage is one page of ListClusters, bounded in SQL: a page
// costs what its items cost, whatever the number of clusters (issue 30).
func (d *DB) ListClustersPage(ctx context.Context, s Scope, p Page) ([]*ClusterView, error) {
	w, args := s.where("c.project_id")
	cmp, order := ">", "ASC"
	if p.Desc {
		cmp, order = "<", "DESC"
	}
	if p.Marker != "" {
		var id int64
		err := d.db.GetContext(ctx, &id, d.q("SELECT c.id FROM clusters c WHERE "+w+" AND LOWER(c.uuid) = ?"),
			slices.Concat(args, []any{strings.ToLower(p.Marker)})...)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrMarkerNotFound
		} else if err != nil {
			return nil, err
		}
		w += " AND c.id " + cmp + " ?"
		args = slices.Concat(args, []any{id})
	}
	return d.clusters(ctx, clusterSelect+" WHERE "+w+" ORDER BY c.id "+order+" LIMIT ?", slices.Concat(args, []any{p.Limit})...)
}

// ClustersRotatingCA returns the clusters in Git whose last operation is a
// phase of a CA rotation (status.OpRotateCA) that has not completed: a
// cluster rotated long ago keeps that operation until its next one, and
// the leader polls this every second.
func (d *DB) ClustersRotatingCA(ctx context.Context) ([]*ClusterView, error) {
	return d.clusters(ctx, clusterSelect+` WHERE c.in_git = 1 AND c.operation = ?
		AND (o.completed_revision IS NULL OR o.completed_revision != c.desired_revision) ORDER BY c.id`, status.OpRotateCA)
}

// GetClusterByUUID returns one cluster, or nil.
func (d *DB) GetClusterByUUID(ctx context.Context, uuid string) (*ClusterView, error) {
	vs, err := d.clusters(ctx, clusterSelect+" WHERE c.uuid = ?", uuid)
	if err != nil || len(vs) == 0 {
		return nil, err
	}
	return vs[0], nil
}

// FindClusters returns the clusters of a scope whose uuid or name is ident
// (several when a name is ambiguous).
func (d *DB) FindClusters(ctx context.Context, s Scope, ident string) ([]*ClusterView, error) {
	w, args := s.where("c.project_id")
	args = append(args, strings.ToLower(ident), ident)
	return d.clusters(ctx, clusterSelect+" WHERE "+w+" AND (LOWER(c.uuid) = ? OR c.name = ?) ORDER BY c.id", args...)
}

func (d *DB) clusters(ctx context.Context, query string, args ...any) ([]*ClusterView, error) {
	var rows []clusterRow
	if err := d.db.SelectContext(ctx, &rows, d.q(query), args...); err != nil {
		return nil, err
	}
	groups, err := d.nodeGroupsOf(ctx, rows)
	if err != nil {
		return nil, err
	}
	out := make([]*ClusterView, 0, len(rows))
	for _, r := range rows {
		v, err := clusterView(r, groups[r.UUID])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// clusterView is the view of one cluster row, its nodegroups g.
func clusterView(r clusterRow, g *nodeGroupSet) (*ClusterView, error) {
	if g == nil {
		g = &nodeGroupSet{}
	}
	v := &ClusterView{Dir: r.Dir, InGit: r.InGit == 1, desiredRevision: r.DesiredRevision,
		DesiredRevision: r.DesiredRevision, AppliedRevision: r.Applied.String, ApplyError: r.ApplyError.String}
	if err := json.Unmarshal([]byte(r.Doc), &v.Cluster); err != nil {
		return nil, err
	}
	if r.CAPI.Valid && r.CAPI.String != "" {
		v.Observed = &status.Observation{}
		if err := json.Unmarshal([]byte(r.CAPI.String), v.Observed); err != nil {
			return nil, err
		}
	}
	ngs, leaving, created := g.inGit, g.leaving, g.created
	started, _ := time.Parse(time.RFC3339Nano, r.OperationStarted)
	v.Changed = v.UpdatedAt
	later := func(t time.Time) {
		if !t.IsZero() && (v.Changed == nil || t.After(*v.Changed)) {
			v.Changed = &t
		}
	}
	if r.Operation != status.OpCreate {
		later(started)
	}
	if t, err := time.Parse(time.RFC3339Nano, r.StatusChangedAt.String); err == nil {
		later(t)
	}
	in := status.Input{
		Operation:         r.Operation,
		InGit:             v.InGit,
		DesiredRevision:   r.DesiredRevision,
		AppliedRevision:   r.Applied.String,
		AppliedGeneration: r.AppliedGen.Int64,
		ApplyError:        r.ApplyError.String,
		ApplyStalled:      r.ApplyStalled.Int64 == 1,
		CompletedRevision: r.Completed.String,
		DeletingReason:    r.DeletingReason.String,
		DeleteFailed:      r.DeleteFailed.Int64 == 1,
		RetiringReason:    r.RetiringReason.String,
		KubeVersion:       v.Labels[schemas.LabelKubeTag],
		NodeGroups:        map[string]int64{},
		StartedAt:         started,
		Now:               time.Now(),
		Observed:          v.Observed,
		Imported:          v.Imported,
		CARotation:        v.CARotation,
	}
	if v.Adopted != nil {
		in.AdoptedStatus = v.Adopted.Status
	}
	if r.Operation == status.OpCreate && v.CreateTimeout > 0 {
		in.Deadline = time.Duration(v.CreateTimeout) * time.Minute
	}
	// With autoscaling, the cluster-autoscaler owns worker counts: Git
	// holds the bounds, and the API shows the count Cluster API reports.
	autoscaled, _ := schemas.Default().Bool(v.Labels, schemas.LabelAutoScalingEnabled)
	for _, ng := range ngs {
		switch {
		case ng.Role == intent.RoleMaster:
			in.MasterCount += ng.NodeCount
		case autoscaled:
			in.NodeGroups[ng.Name] = -1
		default:
			in.NodeGroups[ng.Name] = ng.NodeCount
		}
	}
	v.Result = status.Derive(in)
	v.NodeGroups = nodeGroupViews(ngs, v.Result, v.Observed, autoscaled, in.KubeVersion, newNodeGroups(created, r.DesiredRevision, r.Operation))
	if autoscaled {
		for i := range v.NodeGroups {
			if ng := &v.NodeGroups[i]; ng.Role != intent.RoleMaster && ng.ObservedNodeCount != nil {
				ng.NodeCount = *ng.ObservedNodeCount
			}
		}
	}
	for _, ng := range leaving {
		// Shown while Cluster API still has its MachineDeployment.
		if v.Observed != nil && v.Observed.NodeGroups[ng.Name].Exists {
			nv := NodeGroupView{NodeGroup: ng, Status: status.DeleteInProgress, StatusReason: "Waiting for Cluster API to delete the nodegroup's machines"}
			n := v.Observed.NodeGroups[ng.Name].Current
			nv.ObservedNodeCount = &n
			v.NodeGroups = append(v.NodeGroups, nv)
		}
	}
	return v, nil
}

// nodeGroupSet is a cluster's nodegroups in Git and those leaving it,
// and the revision that brought each (by uuid).
type nodeGroupSet struct {
	inGit, leaving []intent.NodeGroup
	created        map[string]string
}

// nodeGroupBatch bounds the uuids of one IN list (SQLite allows 32,766
// variables, PostgreSQL 65,535).
const nodeGroupBatch = 500

// nodeGroupsOf reads the nodegroups of the clusters rows in one query per
// nodeGroupBatch clusters: a list of n clusters is not n + 1 queries.
func (d *DB) nodeGroupsOf(ctx context.Context, rows []clusterRow) (map[string]*nodeGroupSet, error) {
	out := make(map[string]*nodeGroupSet, len(rows))
	for batch := range slices.Chunk(rows, nodeGroupBatch) {
		if err := d.addNodeGroups(ctx, out, batch); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *DB) addNodeGroups(ctx context.Context, to map[string]*nodeGroupSet, rows []clusterRow) error {
	uuids := make([]any, len(rows))
	for i, r := range rows {
		uuids[i] = r.UUID
	}
	var ngs []struct {
		Cluster string `db:"cluster_uuid"`
		Doc     string `db:"doc"`
		InGit   int    `db:"in_git"`
		Created string `db:"created_revision"`
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(uuids)), ", ")
	if err := d.db.SelectContext(ctx, &ngs, d.q(`SELECT cluster_uuid, doc, in_git, created_revision FROM nodegroups
		WHERE cluster_uuid IN (`+marks+`) ORDER BY id`), uuids...); err != nil {
		return err
	}
	for _, r := range ngs {
		var ng intent.NodeGroup
		if err := json.Unmarshal([]byte(r.Doc), &ng); err != nil {
			return err
		}
		g := to[r.Cluster]
		if g == nil {
			g = &nodeGroupSet{created: map[string]string{}}
			to[r.Cluster] = g
		}
		g.created[ng.UUID] = r.Created
		if r.InGit == 1 {
			g.inGit = append(g.inGit, ng)
		} else {
			g.leaving = append(g.leaving, ng)
		}
	}
	return nil
}

// newNodeGroups are the nodegroups the cluster's current update creates:
// those brought by its desired revision. (A cluster's own create makes
// every nodegroup CREATE_* already.)
func newNodeGroups(created map[string]string, desired, operation string) map[string]bool {
	out := map[string]bool{}
	if operation != status.OpUpdate {
		return out
	}
	for uuid, rev := range created {
		if rev != "" && rev == desired {
			out[uuid] = true
		}
	}
	return out
}

// nodeGroupViews gives each nodegroup the cluster's operation status, settled
// per nodegroup from what Cluster API reports.
func nodeGroupViews(ngs []intent.NodeGroup, cluster status.Result, o *status.Observation, autoscaled bool, version string, creating map[string]bool) []NodeGroupView {
	out := make([]NodeGroupView, 0, len(ngs))
	for _, ng := range ngs {
		prefix, rest, _ := strings.Cut(cluster.Status, "_")
		// A nodegroup the update creates goes through CREATE_*, as in
		// Magnum: clients (openstack coe, Terraform, gophercloud's tests)
		// wait for the nodegroup's CREATE_COMPLETE.
		if prefix == "UPDATE" && creating[ng.UUID] {
			prefix = "CREATE"
		}
		v := NodeGroupView{NodeGroup: ng, Status: prefix + "_" + rest}
		var r status.Replicas
		if o != nil {
			if ng.Role == intent.RoleMaster {
				r = o.ControlPlane
			} else {
				r = o.NodeGroups[ng.Name]
			}
		}
		if r.Exists {
			n := r.Current
			v.ObservedNodeCount = &n
			v.Addresses = r.Addresses
			want := ng.NodeCount
			if autoscaled && ng.Role != intent.RoleMaster {
				want = r.Desired // the autoscaler's choice
			}
			if strings.HasSuffix(cluster.Status, "_IN_PROGRESS") && prefix != "DELETE" && r.Settled(want, version) {
				v.Status = prefix + "_COMPLETE"
			}
		}
		out = append(out, v)
	}
	return out
}

// ListTemplates returns the templates visible in a scope: the project's own
// and, when public is set, every public template not hidden (hidden ones
// too with PublicHidden).
func (d *DB) ListTemplates(ctx context.Context, s Scope, public bool) ([]*intent.ClusterTemplate, error) {
	w, args := s.where("project_id")
	if public && !s.All {
		w = "(" + w + " OR " + s.publicTemplates() + ")"
	}
	return d.templates(ctx, "SELECT doc FROM templates WHERE "+w+" ORDER BY id", args...)
}

// FindTemplates returns the visible templates whose uuid or name is ident.
func (d *DB) FindTemplates(ctx context.Context, s Scope, public bool, ident string) ([]*intent.ClusterTemplate, error) {
	w, args := s.where("project_id")
	if public && !s.All {
		w = "(" + w + " OR " + s.publicTemplates() + ")"
	}
	args = append(args, strings.ToLower(ident), ident)
	return d.templates(ctx, "SELECT doc FROM templates WHERE "+w+" AND (LOWER(uuid) = ? OR name = ?) ORDER BY id", args...)
}

// GetTemplateByUUID returns a template whatever its project, or nil.
func (d *DB) GetTemplateByUUID(ctx context.Context, uuid string) (*intent.ClusterTemplate, error) {
	ts, err := d.templates(ctx, "SELECT doc FROM templates WHERE uuid = ?", uuid)
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	return ts[0], nil
}

func (d *DB) templates(ctx context.Context, query string, args ...any) ([]*intent.ClusterTemplate, error) {
	var docs []string
	if err := d.db.SelectContext(ctx, &docs, d.q(query), args...); err != nil {
		return nil, err
	}
	out := make([]*intent.ClusterTemplate, len(docs))
	for i, doc := range docs {
		out[i] = &intent.ClusterTemplate{}
		if err := json.Unmarshal([]byte(doc), out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ClusterUUIDByStackID maps a CAPI Cluster name back to its Magnum cluster
// ("" when unknown).
func (d *DB) ClusterUUIDByStackID(ctx context.Context, stackID string) (string, error) {
	return d.clusterByStackID(ctx, `SELECT uuid FROM clusters WHERE stack_id = ?`, stackID)
}

// ClusterProjectByStackID is the project of the cluster whose CAPI Cluster
// is stackID ("" when unknown): the observer lists the cluster's Octavia
// load balancers there.
func (d *DB) ClusterProjectByStackID(ctx context.Context, stackID string) (string, error) {
	return d.clusterByStackID(ctx, `SELECT project_id FROM clusters WHERE stack_id = ?`, stackID)
}

// clusterByStackID runs query, which selects one column of the cluster
// whose stack_id is stackID ("" when there is none).
func (d *DB) clusterByStackID(ctx context.Context, query, stackID string) (string, error) {
	var v string
	err := d.db.GetContext(ctx, &v, d.q(query), stackID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}
