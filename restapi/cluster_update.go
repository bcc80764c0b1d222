package restapi

import (
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
	if v.InGit {
		return nil
	}
	return apierr.BadRequest("%s a cluster when status is \"%s\" is not supported.", what, v.Result.Status)
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
func (s *Server) mutateCluster(c *gin.Context, dir string, fn clusterChange) (bool, error) {
	return s.mutateClusterWith(c, dir, fn, nil)
}

func (s *Server) mutateClusterWith(c *gin.Context, dir string, fn clusterChange, l *lookups) (bool, error) {
	changed := false
	err := s.commit(c, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		commit, err := s.clusterChangeOn(c, sn, dir, fn, l, false)
		changed = commit != nil
		return commit, err
	})
	return changed, err
}

// clusterChangeOn computes the commit of a cluster change on a snapshot
// (nil when nothing changes). With lookupsOnly it stops once the change's
// facts are resolved (see mutateClusterResolving).
func (s *Server) clusterChangeOn(c *gin.Context, sn *gitstore.Snapshot, dir string, fn clusterChange, l *lookups, lookupsOnly bool) (*gitstore.Commit, error) {
	if !sn.Exists(path.Join(dir, intent.ClusterFile)) {
		return nil, apierr.NotFound("Cluster %s could not be found.", path.Base(dir))
	}
	st, err := intent.ReadCluster(sn, dir)
	if err != nil {
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
	facts, err := l.clusterFacts(c.Request.Context(), sn, tmpl, st, before)
	if err != nil || lookupsOnly {
		return nil, err
	}
	changes, err := repo.WriteCluster(sn, tmpl, st, facts, s.clusterWriteOptions()...)
	if err != nil {
		return nil, err
	}
	return commitFor(c, fmt.Sprintf("cluster %s: %s", st.Cluster.Name, subject), op, append(changes, extra...)), nil
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
	v := versionOf(c)
	allowedQuery := []string{}
	if v.AtLeast(3) {
		allowedQuery = append(allowedQuery, "rollback")
	}
	if err := checkQuery(c, allowedQuery...); err != nil {
		return err
	}
	if rb := c.Query("rollback"); rb != "" {
		// Accepted for compatibility; keel's rollback is a git revert.
		if _, err := schemas.ParseBool(rb); err != nil {
			return body.Invalid("rollback", rb, "Wrong type. Expected a boolean")
		}
	}
	raw, _ := c.GetRawData()
	ops, perr := jsonpatch.Parse(raw, clusterPatchRules)
	if perr != nil {
		return perr
	}
	view, err := s.authorizedCluster(c, "cluster:update_all_projects", "cluster:update")
	if err != nil {
		return err
	}
	if err := s.enforce(c, "cluster:update_health_status", nil); err != nil {
		return err
	}
	if err := notWhileDeleting(view, "Updating"); err != nil {
		return err
	}
	_, err = s.mutateCluster(c, view.Dir, func(sn *gitstore.Snapshot, st *intent.ClusterState, _ **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
		doc, err := clusterDoc(view, st)
		if err != nil {
			return "", "", nil, err
		}
		patched, perr := jsonpatch.Apply(doc, ops, clusterPatchRules)
		if perr != nil {
			return "", "", nil, perr
		}
		changed, err := changedFields(doc, patched, clusterFieldSpecs)
		if err != nil {
			return "", "", nil, err
		}
		var disallowed []string
		for _, k := range changed {
			if _, ok := clusterPatchable[k]; !ok {
				disallowed = append(disallowed, k)
			}
		}
		if len(disallowed) > 0 {
			return "", "", nil, apierr.BadRequest("cannot change cluster property(ies) %s.", strings.Join(disallowed, ", "))
		}
		var what []string
		cl := &st.Cluster
		for _, k := range changed {
			val, _ := jsonpatch.DecodePatched(clusterPatchable[k], patched[k])
			switch k {
			case "node_count":
				n, ok := val.(int64)
				if !ok { // null: changedFields re-validated every other value
					return "", "", nil, errNullNodeCount()
				}
				if n == 0 && !v.AtLeast(10) {
					return "", "", nil, errZeroNodeCount()
				}
				w := defaultWorker(st)
				if w == nil {
					return "", "", nil, apierr.NotFound("Nodegroup %s could not be found.", intent.DefaultWorkerNodeGroup)
				}
				if err := resizeBounds(w, n); err != nil {
					return "", "", nil, err
				}
				what = append(what, fmt.Sprintf("resize %s %d → %d", w.Name, w.NodeCount, n))
				w.NodeCount, w.NodesToRemove, w.UpdatedAt = n, nil, intent.Ptr(now())
			case "health_status":
				if val == nil {
					cl.HealthStatus = nil
					what = append(what, "clear health_status")
				} else {
					cl.HealthStatus = intent.Ptr(val.(string))
					what = append(what, "health_status "+*cl.HealthStatus)
				}
			case "health_status_reason":
				m, _ := val.(map[string]string)
				cl.HealthStatusReason = m
				if cl.HealthStatus == nil {
					// Keep the reason next to the status it explains.
					if h, ok := patched["health_status"].(string); ok {
						cl.HealthStatus = intent.Ptr(h)
					}
				}
				what = append(what, "health_status_reason")
			}
		}
		if len(what) == 0 {
			return "", "", nil, nil
		}
		cl.UpdatedAt = intent.Ptr(now())
		return strings.Join(what, ", "), status.OpUpdate, nil, nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, uuidReply{UUID: view.UUID})
	return nil
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
	if view.InGit {
		err := s.commit(c, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
			if !sn.Exists(view.Dir) {
				return nil, nil // deleted concurrently: nothing left to do
			}
			return commitFor(c, fmt.Sprintf("cluster %s: delete", view.Name), status.OpDelete,
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
