package restapi

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/body"
	"github.com/openkeel/keel/restapi/jsonpatch"
	"github.com/openkeel/keel/restapi/policy"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// lookupCluster resolves a cluster ident in the caller's project, or in
// every project when all (an admin on a route with all_tenants).
func (s *Server) lookupCluster(c *gin.Context, ident string, all bool) (*readmodel.ClusterView, error) {
	creds := auth.Of(c)
	vs, err := s.cfg.DB.FindClusters(c.Request.Context(), readmodel.Scope{ProjectID: creds.ProjectID, All: all}, ident)
	if err != nil {
		return nil, err
	}
	switch len(vs) {
	case 0:
		return nil, apierr.NotFound("Cluster %s could not be found.", ident)
	case 1:
		return vs[0], nil
	}
	return nil, apierr.Conflict("Multiple clusters exist with same name. Please use the cluster uuid instead.")
}

func clusterTarget(v *readmodel.ClusterView) policy.Target {
	return policy.Target{"project_id": v.ProjectID, "user_id": v.UserID}
}

// notWhileDeleting refuses a change to a cluster whose folder already left
// Git: there is nothing left to change (Magnum's conductor drops such
// requests silently after a 202; keel says so).
func notWhileDeleting(v *readmodel.ClusterView, what string) error {
	if err := notReadOnly(&v.Cluster); err != nil {
		return err
	}
	if v.InGit {
		return nil
	}
	return apierr.BadRequest("%s a cluster when status is \"%s\" is not supported.", what, v.Result.Status)
}

// notReadOnly refuses any change to a cluster imported from Magnum as a
// read-only record (intent.Imported): keel does not manage it, so a
// resize, upgrade or delete through keel would change only keel's record
// and not the cluster.
func notReadOnly(c *intent.Cluster) error {
	if !c.ReadOnly() {
		return nil
	}
	return apierr.Conflict("Cluster %s is a read-only record imported from Magnum (%s); keel does not change it. Change it with Magnum, or adopt it into keel (docs/migration.md).",
		c.Name, c.Imported.Reason)
}

// clusterChange edits a cluster's intent loaded from the snapshot being
// committed. It returns the commit subject (relative to "cluster <name>: ")
// and operation, or an empty subject when nothing changes. extra are
// changes beyond the re-rendered folder (a removed nodegroup file).
type clusterChange func(sn *gitstore.Snapshot, st *intent.ClusterState, tmpl **intent.ClusterTemplate) (subject, op string, extra []gitstore.Change, err error)

// mutateCluster commits one change of a cluster folder: the intent is read
// from the snapshot being committed (so a retry on a moved HEAD recomputes
// it from the latest state), edited by fn, and the folder re-rendered with
// the facts it records (no OpenStack lookup: see mutateClusterResolving).
// It reports whether a commit was made.
func (s *Server) mutateCluster(ctx context.Context, who requester, dir string, fn clusterChange) (bool, error) {
	return s.mutateClusterWith(ctx, who, dir, fn, nil)
}

// mutateClusterWith is mutateCluster with a resolver of the change's
// facts and options of its write (opts: repo.RotateCredential).
func (s *Server) mutateClusterWith(ctx context.Context, who requester, dir string, fn clusterChange, l *resolver, opts ...repo.WriteOption) (bool, error) {
	changed := false
	err := s.writes.Commit(ctx, who.Caller, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		commit, err := s.clusterChangeOn(ctx, who, sn, dir, fn, l, false, opts...)
		changed = commit != nil
		return commit, err
	})
	return changed, err
}

// clusterChangeOn computes the commit of a cluster change on a snapshot
// (nil when nothing changes). With lookupsOnly it stops once the change's
// facts are resolved (see mutateClusterResolving).
func (s *Server) clusterChangeOn(ctx context.Context, who requester, sn *gitstore.Snapshot, dir string, fn clusterChange, l *resolver, lookupsOnly bool, opts ...repo.WriteOption) (*gitstore.Commit, error) {
	if !sn.Exists(path.Join(dir, intent.ClusterFile)) {
		return nil, apierr.NotFound("Cluster %s could not be found.", path.Base(dir))
	}
	st, err := intent.ReadCluster(sn, dir)
	if err != nil {
		return nil, err
	}
	if err := notReadOnly(&st.Cluster); err != nil {
		return nil, err
	}
	tmpl, _, err := intent.FindTemplate(sn, st.Cluster.ClusterTemplateID)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: template %s: %w", st.Cluster.Name, st.Cluster.ClusterTemplateID, err)
	}
	before := clusterRefs(tmpl, &st.Cluster, st.NodeGroups)
	subject, op, extra, err := fn(sn, st, &tmpl)
	if err != nil || subject == "" {
		return nil, err
	}
	if op != status.OpRotateCA && st.Cluster.CARotation.InProgress() {
		return nil, errRotatingCA(st.Cluster.Name, st.Cluster.CARotation)
	}
	facts, err := l.clusterFacts(ctx, sn, tmpl, st, before)
	if err != nil || lookupsOnly {
		return nil, err
	}
	changes, err := repo.WriteCluster(sn, tmpl, st, facts, append(s.clusterWriteOptions(), opts...)...)
	if err != nil {
		return nil, err
	}
	return who.Commit(fmt.Sprintf("cluster %s: %s", st.Cluster.Name, subject), op, append(changes, extra...)), nil
}

func findNodeGroupState(st *intent.ClusterState, pred func(*intent.NodeGroup) bool) *intent.NodeGroup {
	for i := range st.NodeGroups {
		if pred(&st.NodeGroups[i]) {
			return &st.NodeGroups[i]
		}
	}
	return nil
}

func defaultWorker(st *intent.ClusterState) *intent.NodeGroup {
	return findNodeGroupState(st, func(ng *intent.NodeGroup) bool { return ng.IsDefault && ng.Role != intent.RoleMaster })
}

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// clusterPatchRules are Magnum's ClusterPatchType rules. keel adds
// /node_count to the mandatory paths: Magnum resets a removed node_count to
// 1, which scales a production nodegroup down by accident.
var clusterPatchRules = jsonpatch.Rules{
	Internal: []string{"/api_address", "/node_addresses", "/master_addresses", "/stack_id", "/cluster_id",
		"/ca_cert_ref", "/magnum_cert_ref", "/etcd_ca_cert_ref", "/front_proxy_ca_cert_ref"},
	Mandatory: []string{"/node_count"},
	Literal:   []string{"/labels", "/health_status_reason"},
}

// clusterPatchable are the attributes a cluster PATCH may change.
var clusterPatchable = map[string]body.Field{
	"node_count":           {Name: "node_count", Kind: body.Int, Min: body.I64(0)},
	"health_status":        {Name: "health_status", Kind: body.String, Enum: []string{status.Healthy, status.Unhealthy, status.Unknown}},
	"health_status_reason": {Name: "health_status_reason", Kind: body.Labels},
}

// clusterDoc is the document a cluster PATCH applies to: Magnum's
// Cluster.as_dict(), whose node_count is keel's default worker's.
func clusterDoc(v *readmodel.ClusterView, st *intent.ClusterState) (map[string]any, error) {
	cl := &st.Cluster
	var nodes int64
	if w := defaultWorker(st); w != nil {
		nodes = w.NodeCount
	}
	masters, _ := nodeCounts(st.NodeGroups)
	// The document holds the observed health even while the cluster is
	// being created, as it always did: it only tells which fields a patch
	// changes.
	health, reason := clusterHealth(cl, v, true)
	return jsonpatch.ToDoc(map[string]any{
		"id": cl.ID, "uuid": cl.UUID, "name": cl.Name, "project_id": cl.ProjectID, "user_id": cl.UserID,
		"cluster_template_id": cl.ClusterTemplateID, "keypair": cl.Keypair, "docker_volume_size": cl.DockerVolumeSize,
		"labels": cl.Labels, "master_flavor_id": cl.MasterFlavorID, "flavor_id": cl.FlavorID,
		"stack_id": cl.StackID, "status": v.Result.Status, "status_reason": nilIfEmpty(v.Result.StatusReason),
		"health_status": health, "health_status_reason": reason, "create_timeout": cl.CreateTimeout,
		"discovery_url": cl.DiscoveryURL, "api_address": nil, "coe_version": nil, "container_version": nil,
		"node_count": nodes, "master_count": masters, "node_addresses": []string{}, "master_addresses": []string{},
		"fixed_network": cl.FixedNetwork, "fixed_subnet": cl.FixedSubnet,
		"floating_ip_enabled": cl.FloatingIPEnabled, "master_lb_enabled": cl.MasterLBEnabled,
		"created_at": timestamp(&cl.CreatedAt), "updated_at": timestamp(cl.UpdatedAt),
	})
}

// updateCluster is PATCH /v1/clusters/{ident}: node_count of the default
// worker (applied: the reference driver fails it), health_status and
// health_status_reason (the auto-healer's fields). Anything else is a 400.
func (s *Server) updateCluster(c *gin.Context) error {
	req, err := parseClusterPatch(c)
	if err != nil {
		return err
	}
	view, err := s.authorizedCluster(c, "cluster:update_all_projects", "cluster:update")
	if err == nil {
		err = s.enforce(c, "cluster:update_health_status", nil)
	}
	if err == nil {
		err = notWhileDeleting(view, "Updating")
	}
	if err == nil {
		req.view = view
		_, err = s.mutateCluster(c.Request.Context(), callerOf(c), view.Dir, req.change)
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, uuidReply{UUID: view.UUID})
	return nil
}

// clusterPatch is a cluster PATCH: its operations, at the request's
// microversion, on the cluster the route names (its read-model view).
type clusterPatch struct {
	ops     []jsonpatch.Op
	version Version
	view    *readmodel.ClusterView
}

// parseClusterPatch reads a cluster PATCH's query and body; rollback is
// accepted for compatibility (keel's rollback is a git revert).
func parseClusterPatch(c *gin.Context) (*clusterPatch, error) {
	v := versionOf(c)
	allowedQuery := []string{}
	if v.AtLeast(3) {
		allowedQuery = append(allowedQuery, "rollback")
	}
	if err := checkQuery(c, allowedQuery...); err != nil {
		return nil, err
	}
	if rb := c.Query("rollback"); rb != "" {
		if _, err := schemas.ParseBool(rb); err != nil {
			return nil, body.Invalid("rollback", rb, "Wrong type. Expected a boolean")
		}
	}
	raw, _ := c.GetRawData()
	ops, perr := jsonpatch.Parse(raw, clusterPatchRules)
	if perr != nil {
		return nil, perr
	}
	return &clusterPatch{ops: ops, version: v}, nil
}

// change applies the patch to the cluster's intent (a clusterChange): only
// the clusterPatchable attributes may differ from the cluster's document.
func (p *clusterPatch) change(_ *gitstore.Snapshot, st *intent.ClusterState, _ **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
	doc, err := clusterDoc(p.view, st)
	if err != nil {
		return "", "", nil, err
	}
	patched, perr := jsonpatch.Apply(doc, p.ops, clusterPatchRules)
	if perr != nil {
		return "", "", nil, perr
	}
	changed, err := patchableChanges(doc, patched)
	if err != nil || len(changed) == 0 {
		return "", "", nil, err
	}
	what := make([]string, len(changed))
	for i, k := range changed {
		if what[i], err = p.set(st, k, patched); err != nil {
			return "", "", nil, err
		}
	}
	st.Cluster.UpdatedAt = intent.Ptr(now())
	return strings.Join(what, ", "), status.OpUpdate, nil, nil
}

// patchableChanges lists the attributes a patch changes, refusing any a
// cluster PATCH may not change.
func patchableChanges(doc, patched map[string]any) ([]string, error) {
	changed, err := changedFields(doc, patched, clusterFieldSpecs)
	if err != nil {
		return nil, err
	}
	var disallowed []string
	for _, k := range changed {
		if _, ok := clusterPatchable[k]; !ok {
			disallowed = append(disallowed, k)
		}
	}
	if len(disallowed) > 0 {
		return nil, apierr.BadRequest("cannot change cluster property(ies) %s.", strings.Join(disallowed, ", "))
	}
	return changed, nil
}

// set changes one patchable attribute k to its patched value; it returns
// what the commit subject says of it.
func (p *clusterPatch) set(st *intent.ClusterState, k string, patched map[string]any) (string, error) {
	val, _ := jsonpatch.DecodePatched(clusterPatchable[k], patched[k])
	cl := &st.Cluster
	switch k {
	case "node_count":
		return p.resizeDefaultWorker(st, val)
	case "health_status":
		if val == nil {
			cl.HealthStatus = nil
			return "clear health_status", nil
		}
		cl.HealthStatus = intent.Ptr(val.(string))
		return "health_status " + *cl.HealthStatus, nil
	}
	return setHealthReason(cl, val, patched), nil
}

// setHealthReason is a patched health_status_reason.
func setHealthReason(cl *intent.Cluster, val any, patched map[string]any) string {
	m, _ := val.(map[string]string)
	cl.HealthStatusReason = m
	if cl.HealthStatus == nil {
		// Keep the reason next to the status it explains.
		if h, ok := patched["health_status"].(string); ok {
			cl.HealthStatus = intent.Ptr(h)
		}
	}
	return "health_status_reason"
}

// resizeDefaultWorker is a patched node_count: the default worker's size.
func (p *clusterPatch) resizeDefaultWorker(st *intent.ClusterState, val any) (string, error) {
	n, ok := val.(int64)
	if !ok { // null: changedFields re-validated every other value
		return "", errNullNodeCount()
	}
	if n == 0 && !p.version.AtLeast(10) {
		return "", errZeroNodeCount()
	}
	w := defaultWorker(st)
	if w == nil {
		return "", apierr.NotFound("Nodegroup %s could not be found.", intent.DefaultWorkerNodeGroup)
	}
	if err := resizeBounds(w, n); err != nil {
		return "", err
	}
	what := fmt.Sprintf("resize %s %d → %d", w.Name, w.NodeCount, n)
	w.NodeCount, w.NodesToRemove, w.UpdatedAt = n, nil, intent.Ptr(now())
	return what, nil
}

// errNullNodeCount refuses `replace /node_count null`: a cluster's size is
// a number (Magnum lets the null through to its conductor, which fails).
func errNullNodeCount() error {
	return body.Invalid("node_count", "None", "Value should be an integer of at least 0 (1 before microversion 1.10), not null")
}

// clusterFieldSpecs re-validates patched cluster attributes with the POST
// rules (a string in an int field is a 400 before "cannot change").
var clusterFieldSpecs = func() map[string]body.Field {
	m := map[string]body.Field{}
	for _, f := range clusterFields {
		if f.Kind != body.Any {
			f.ReadOnly, f.Mandatory = false, false
			m[f.Name] = f
		}
	}
	for k, f := range clusterPatchable {
		m[k] = f
	}
	return m
}()

// changedFields lists (sorted) the top-level attributes whose value differs
// between two documents, comparing typed values where a spec exists
// ("false" and false are the same bool).
func changedFields(old, patched map[string]any, specs map[string]body.Field) ([]string, error) {
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range patched {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		a, b := old[k], patched[k]
		if f, ok := specs[k]; ok {
			var perr *apierr.Error
			if b, perr = jsonpatch.DecodePatched(f, b); perr != nil {
				return nil, perr
			}
			if a, perr = jsonpatch.DecodePatched(f, a); perr != nil {
				a = old[k] // a stored value the POST rules would refuse: compare raw
			}
		}
		if !sameJSON(a, b) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

func sameJSON(a, b any) bool {
	x, err1 := jsonpatch.ToDoc(map[string]any{"v": a})
	y, err2 := jsonpatch.ToDoc(map[string]any{"v": b})
	if err1 != nil || err2 != nil {
		return false
	}
	return jsonpatch.PyRepr(x["v"]) == jsonpatch.PyRepr(y["v"])
}

// resizeBounds is Magnum's NGResizeOutBounds (its message and status) for
// worker nodegroups. The master nodegroup's size rule (odd, at least 1:
// etcd needs a majority) is the schema's (#NodeGroup), checked when the
// resized document is committed (validateDocuments).
func resizeBounds(ng *intent.NodeGroup, n int64) error {
	if ng.Role == intent.RoleMaster {
		return nil
	}
	if n < ng.MinNodeCount || (ng.MaxNodeCount != nil && *ng.MaxNodeCount < n) {
		max := "None"
		if ng.MaxNodeCount != nil {
			max = fmt.Sprint(*ng.MaxNodeCount)
		}
		return apierr.BadRequest("Resizing %s outside the allowed range: min_node_count = %d, max_node_count = %s", ng.Name, ng.MinNodeCount, max)
	}
	return nil
}

// deleteCluster is DELETE /v1/clusters/{ident}: one commit removing the
// cluster's folder; the reconciler then deletes what it applied. A cluster
// already leaving (its folder gone, the row DELETE_IN_PROGRESS) answers 204
// again without a commit, as Magnum's idempotent delete does.
func (s *Server) deleteCluster(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	view, err := s.authorizedCluster(c, "cluster:delete_all_projects", "cluster:delete")
	if err != nil {
		return err
	}
	if err := notReadOnly(&view.Cluster); err != nil {
		return err
	}
	if view.InGit {
		who := callerOf(c)
		err := s.writes.Commit(c.Request.Context(), who.Caller, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
			if !sn.Exists(view.Dir) {
				return nil, nil // deleted concurrently: nothing left to do
			}
			return who.Commit(fmt.Sprintf("cluster %s: delete", view.Name), status.OpDelete,
				[]gitstore.Change{{Path: view.Dir, Delete: true}}), nil
		})
		if err != nil {
			return err
		}
	}
	c.Status(http.StatusNoContent)
	return nil
}

// authorizedCluster finds the cluster the route names, across projects when
// the caller passes allRule, and checks rule on it.
func (s *Server) authorizedCluster(c *gin.Context, allRule, rule string) (*readmodel.ClusterView, error) {
	all, err := s.allProjects(c, allRule)
	var view *readmodel.ClusterView
	if err == nil {
		view, err = s.lookupCluster(c, c.Param("ident"), all)
	}
	if err == nil {
		err = s.enforce(c, rule, clusterTarget(view))
	}
	if err != nil {
		return nil, err
	}
	return view, nil
}
