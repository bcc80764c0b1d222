package restapi

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/body"
	"github.com/openkeel/keel/restapi/jsonpatch"
	"github.com/openkeel/keel/restapi/write"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// nodeGroupNamePattern: a nodegroup names a MachineDeployment of the
// cluster's topology, so keel needs a lowercase RFC 1123 name where Magnum
// takes any string.
var nodeGroupNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

var nodeGroupFields = []body.Field{
	{Name: "name", Kind: body.String, Mandatory: true, MinLen: 1, MaxLen: 63, Pattern: nodeGroupNamePattern},
	{Name: "docker_volume_size", Kind: body.Int, Min: body.I64(1)},
	{Name: "labels", Kind: body.Labels},
	{Name: "flavor_id", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "image_id", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "node_count", Kind: body.Int, Min: body.I64(0)},
	{Name: "role", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "min_node_count", Kind: body.Int, Min: body.I64(0)},
	{Name: "max_node_count", Kind: body.Int, Min: body.I64(0)},
	{Name: "merge_labels", Kind: body.Bool},
	{Name: "node_labels", Kind: body.Labels},
	{Name: "node_taints", Kind: body.Any},
	// Accepted and ignored, as Magnum does (the path names the cluster).
	{Name: "uuid", Kind: body.Any}, {Name: "cluster_id", Kind: body.Any}, {Name: "is_default", Kind: body.Any},
	{Name: "status", Kind: body.Any}, {Name: "status_reason", Kind: body.Any}, {Name: "version", Kind: body.Any},
	{Name: "labels_overridden", Kind: body.Any}, {Name: "labels_added", Kind: body.Any}, {Name: "labels_skipped", Kind: body.Any},
	// Read-only.
	{Name: "id", Kind: body.Any, ReadOnly: true}, {Name: "project_id", Kind: body.Any, ReadOnly: true},
	{Name: "node_addresses", Kind: body.Any, ReadOnly: true}, {Name: "stack_id", Kind: body.Any, ReadOnly: true},
	{Name: "links", Kind: body.Any, ReadOnly: true}, {Name: "created_at", Kind: body.Any, ReadOnly: true},
	{Name: "updated_at", Kind: body.Any, ReadOnly: true},
}

func findNodeGroupView(cl *readmodel.ClusterView, ident string) (*readmodel.NodeGroupView, error) {
	match := matchNodeGroup(ident)
	for i := range cl.NodeGroups {
		if match(&cl.NodeGroups[i].NodeGroup) {
			return &cl.NodeGroups[i], nil
		}
	}
	return nil, apierr.NotFound("Nodegroup %s could not be found.", ident)
}

// nodeGroupCluster resolves the parent cluster: reads span every project
// for admins (nodegroup:*_all_projects), writes never do (Magnum).
func (s *Server) nodeGroupCluster(c *gin.Context, allRule string) (*readmodel.ClusterView, error) {
	all := false
	if allRule != "" {
		var err error
		if all, err = s.allProjects(c, allRule); err != nil {
			return nil, err
		}
	}
	return s.lookupCluster(c, c.Param("ident"), all)
}

// nodeGroupTarget resolves the cluster (in the caller's project) and the
// nodegroup of a write route, after the policy check.
func (s *Server) nodeGroupTarget(c *gin.Context, rule string) (*readmodel.ClusterView, *readmodel.NodeGroupView, error) {
	cl, err := s.nodeGroupCluster(c, "")
	if err == nil {
		err = s.enforce(c, rule, nil)
	}
	var view *readmodel.NodeGroupView
	if err == nil {
		view, err = findNodeGroupView(cl, c.Param("ng"))
	}
	if err != nil {
		return nil, nil, err
	}
	return cl, view, nil
}

func (s *Server) listNodeGroups(c *gin.Context) error {
	if err := checkQuery(c, "limit", "marker", "sort_key", "sort_dir", "role"); err != nil {
		return err
	}
	if err := s.enforce(c, "nodegroup:get_all", nil); err != nil {
		return err
	}
	cl, err := s.nodeGroupCluster(c, "nodegroup:get_all_all_projects")
	if err != nil {
		return err
	}
	role, hasRole := c.GetQuery("role")
	items := []nodeGroupSummary{}
	for i := range cl.NodeGroups {
		if hasRole && cl.NodeGroups[i].Role != role {
			continue
		}
		items = append(items, newNodeGroupSummary(cl, &cl.NodeGroups[i]))
	}
	page, next, perr := paginate(c, items, s.cfg.MaxLimit, "clusters/"+cl.UUID+"/nodegroups")
	if perr != nil {
		return perr
	}
	if next != "" && hasRole {
		next += "&role=" + role
	}
	c.JSON(http.StatusOK, nodeGroupsView{NodeGroups: page, Next: next})
	return nil
}

func (s *Server) getNodeGroup(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	if err := s.enforce(c, "nodegroup:get", nil); err != nil {
		return err
	}
	cl, err := s.nodeGroupCluster(c, "nodegroup:get_one_all_projects")
	if err != nil {
		return err
	}
	ng, err := findNodeGroupView(cl, c.Param("ng"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, newNodeGroupDetail(c, cl, ng))
	return nil
}

func ngInvalid(attr, ng, why string, args ...any) *apierr.Error {
	return apierr.Conflict("%s for %s is invalid (%s).", attr, ng, fmt.Sprintf(why, args...))
}

// validateNodeGroup applies Magnum's NodeGroupInvalidInput rules (409).
func validateNodeGroup(ng *intent.NodeGroup) error {
	if ng.MaxNodeCount != nil {
		if *ng.MaxNodeCount < ng.MinNodeCount {
			return ngInvalid("max_node_count", ng.Name, "max_node_count (%d) should be greater or equal to min_node_count (%d)", *ng.MaxNodeCount, ng.MinNodeCount)
		}
		if *ng.MaxNodeCount < ng.NodeCount {
			return ngInvalid("max_node_count", ng.Name, "max_node_count (%d) should be greater or equal to node_count (%d)", *ng.MaxNodeCount, ng.NodeCount)
		}
	}
	if ng.NodeCount < ng.MinNodeCount {
		return ngInvalid("node_count", ng.Name, "node_count (%d) should be greater or equal to min_node_count (%d)", ng.NodeCount, ng.MinNodeCount)
	}
	if ng.Role == intent.RoleMaster && len(ng.NodeLabels) > 0 {
		return ngInvalid("node_labels", ng.Name, "node labels are not supported on master nodegroups")
	}
	if ng.Role == intent.RoleMaster && len(ng.NodeTaints) > 0 {
		return ngInvalid("node_taints", ng.Name, "node taints are not supported on master nodegroups")
	}
	keys := make([]string, 0, len(ng.NodeLabels))
	for k := range ng.NodeLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if why := nodeLabelProblem(k, ng.NodeLabels[k]); why != "" {
			return ngInvalid("node_labels", ng.Name, "%s", why)
		}
	}
	for _, t := range ng.NodeTaints {
		if !qualifiedName.MatchString(t.Key) {
			return ngInvalid("node_taints", ng.Name, "taint key %q is not a valid Kubernetes label key", t.Key)
		}
		if !labelValue.MatchString(t.Value) {
			return ngInvalid("node_taints", ng.Name, "taint value %q is not a valid Kubernetes label value", t.Value)
		}
	}
	return nil
}

var (
	qualifiedName = regexp.MustCompile(`^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	labelValue    = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
)

// kubeletLabels are the well-known labels the kubelet sets itself, which
// Magnum exempts from the restricted namespaces.
var kubeletLabels = []string{"kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os",
	"beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type", "beta.kubernetes.io/arch",
	"beta.kubernetes.io/os", "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region"}

func nodeLabelProblem(k, v string) string {
	if !qualifiedName.MatchString(k) || len(k) > 316 {
		return fmt.Sprintf("label key %q is not a valid Kubernetes label key", k)
	}
	if !labelValue.MatchString(v) {
		return fmt.Sprintf("label value %q of %s is not a valid Kubernetes label value", v, k)
	}
	prefix, _, ok := strings.Cut(k, "/")
	if !ok || slices.Contains(kubeletLabels, k) {
		return ""
	}
	restricted := prefix == "kubernetes.io" || prefix == "k8s.io" ||
		strings.HasSuffix(prefix, ".kubernetes.io") || strings.HasSuffix(prefix, ".k8s.io")
	exempt := prefix == "kubelet.kubernetes.io" || prefix == "node.kubernetes.io" ||
		strings.HasSuffix(prefix, ".kubelet.kubernetes.io") || strings.HasSuffix(prefix, ".node.kubernetes.io")
	if restricted && !exempt {
		return fmt.Sprintf("label key %s is in a restricted namespace (kubernetes.io and k8s.io are reserved; node.kubernetes.io/ and kubelet.kubernetes.io/ are allowed)", k)
	}
	return ""
}

// parseTaints turns the JSON (or Python-literal) taint list into taints,
// with Magnum's 409 for a malformed one.
func parseTaints(ngName string, v any) ([]intent.Taint, error) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, ngInvalid("node_taints", ngName, "node_taints must be a list of taints")
	}
	out := make([]intent.Taint, 0, len(l))
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, ngInvalid("node_taints", ngName, "each taint must be an object with key, value and effect")
		}
		var t intent.Taint
		for k, x := range m {
			s, isStr := x.(string)
			if !isStr && x != nil {
				return nil, ngInvalid("node_taints", ngName, "taint field %s must be a string", k)
			}
			switch k {
			case "key":
				t.Key = s
			case "value":
				t.Value = s
			case "effect":
				t.Effect = s
			default:
				return nil, ngInvalid("node_taints", ngName, "unknown taint field %s", k)
			}
		}
		if t.Key == "" {
			return nil, ngInvalid("node_taints", ngName, "a taint needs a key")
		}
		if t.Effect != "NoSchedule" && t.Effect != "PreferNoSchedule" && t.Effect != "NoExecute" {
			return nil, ngInvalid("node_taints", ngName, "taint effect %q must be NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
		}
		out = append(out, t)
	}
	return out, nil
}

// createNodeGroup is POST /v1/clusters/{ident}/nodegroups: the nodegroup
// joins the cluster's intent and the compiler adds a MachineDeployment to
// the topology, in one commit.
func (s *Server) createNodeGroup(c *gin.Context) error {
	b, err := parseBody(c, "nodegroup", nodeGroupFields)
	if err != nil {
		return err
	}
	cl, err := s.nodeGroupCluster(c, "")
	if err != nil {
		return err
	}
	if err := s.enforce(c, "nodegroup:create", nil); err != nil {
		return err
	}
	ng, err := s.newNodeGroup(b, cl)
	if err != nil {
		return err
	}
	var ngUUID string
	_, err = s.mutateClusterResolving(c.Request.Context(), callerOf(c), cl.Dir, cl.ProjectID, addNodeGroup(ng, &ngUUID), ng.Name)
	if err != nil {
		return err
	}
	return s.respondNodeGroup(c, cl.UUID, ngUUID)
}

// newNodeGroup is the nodegroup a create asks for, checked in Magnum's
// order: the cluster reachable and not leaving, the name free, the
// fields, the role (no master), then the labels (the cluster's, merged
// with the request's when it says so).
func (s *Server) newNodeGroup(b body.Body, cl *readmodel.ClusterView) (intent.NodeGroup, error) {
	if err := notReadOnly(&cl.Cluster); err != nil {
		return intent.NodeGroup{}, err
	}
	if cl.OnAdoptedClass() {
		return intent.NodeGroup{}, apierr.BadRequest("Cluster %s still runs on ClusterClass %s, which it was adopted with from %s, and keel cannot add a "+
			"nodegroup to it: upgrade the cluster first (openstack coe cluster upgrade), which moves it onto keel's ClusterClass.",
			cl.Name, cl.Adopted.Class, cl.Adopted.From)
	}
	if cl.Observed == nil || cl.Observed.APIAddress == "" {
		return intent.NodeGroup{}, apierr.Conflict("Cluster API address is not available yet")
	}
	if err := notWhileDeleting(cl, "Adding a nodegroup to"); err != nil {
		return intent.NodeGroup{}, err
	}
	ng, err := newNodeGroupIntent(b, cl)
	if err != nil {
		return ng, err
	}
	if findNodeGroupByName(cl, ng.Name) {
		return ng, apierr.Conflict("A node group with name %s already exists in the cluster %s.", ng.Name, cl.Name)
	}
	if err := validateNodeGroup(&ng); err != nil {
		return ng, err
	}
	if ng.Role == intent.RoleMaster {
		return ng, apierr.BadRequest("Creating master nodegroups is currently not supported.")
	}
	given, present := b.Labels("labels")
	merge := b.Boolean("merge_labels") != nil && *b.Boolean("merge_labels")
	ng.Labels = schemas.MergeLabels(cl.Labels, given, present, merge)
	if err := s.validateLabels(schemas.ScopeNodeGroup, ng.Labels); err != nil {
		return ng, err
	}
	ng.FlavorID, ng.DockerVolumeSize, ng.ImageID = b.Str("flavor_id"), b.Integer("docker_volume_size"), b.Str("image_id")
	return ng, nil
}

// newNodeGroupIntent is the worker nodegroup a create asks for, in the
// cluster cl: Magnum's defaults overridden by the request's fields.
func newNodeGroupIntent(b body.Body, cl *readmodel.ClusterView) (intent.NodeGroup, error) {
	name := *b.Str("name")
	ng := intent.NodeGroup{
		TypeMeta:  intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
		UUID:      uuid.NewString(),
		Name:      name,
		ClusterID: cl.UUID,
		ProjectID: cl.ProjectID,
		Role:      intent.RoleWorker,
		NodeCount: 1,
		CreatedAt: now(),
	}
	if r := b.Str("role"); r != nil {
		ng.Role = *r
	}
	if n := b.Integer("node_count"); n != nil {
		ng.NodeCount = *n
	}
	if n := b.Integer("min_node_count"); n != nil {
		ng.MinNodeCount = *n
	}
	ng.MaxNodeCount = b.Integer("max_node_count")
	if l, ok := b.Labels("node_labels"); ok {
		ng.NodeLabels = l
	}
	var err error
	if ng.NodeTaints, err = parseTaints(name, b["node_taints"]); err != nil {
		return ng, err
	}
	return ng, nil
}

// addNodeGroup is the change that adds ng to its cluster, with the
// cluster's flavor, the template's image and the cluster's docker volume
// size where the request gave none, and its id; it sets *added to the new
// nodegroup's uuid.
func addNodeGroup(ng intent.NodeGroup, added *string) clusterChange {
	return func(sn *gitstore.Snapshot, st *intent.ClusterState, tmpl **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
		n := ng // a retry starts again from the request
		if findNodeGroupState(st, func(x *intent.NodeGroup) bool { return x.Name == n.Name }) != nil {
			return "", "", nil, apierr.Conflict("A node group with name %s already exists in the cluster %s.", n.Name, st.Cluster.Name)
		}
		if n.FlavorID == nil {
			n.FlavorID = st.Cluster.FlavorID
		}
		if n.ImageID == nil {
			n.ImageID = intent.Ptr((*tmpl).ImageID)
		}
		if n.DockerVolumeSize == nil {
			n.DockerVolumeSize = st.Cluster.DockerVolumeSize
		}
		seq, err := intent.ReadSequences(sn)
		if err != nil {
			return "", "", nil, err
		}
		seq.NodeGroups++
		n.ID = seq.NodeGroups
		sc, err := write.SequencesChange(seq)
		if err != nil {
			return "", "", nil, err
		}
		st.NodeGroups = append(st.NodeGroups, n)
		*added = n.UUID
		return fmt.Sprintf("add nodegroup %s (%d nodes)", n.Name, n.NodeCount), status.OpUpdate, []gitstore.Change{sc}, nil
	}
}

func findNodeGroupByName(cl *readmodel.ClusterView, name string) bool {
	for _, ng := range cl.NodeGroups {
		if ng.Name == name {
			return true
		}
	}
	return false
}

// respondNodeGroup answers 202 with the committed nodegroup's full view.
func (s *Server) respondNodeGroup(c *gin.Context, clusterUUID, ngUUID string) error {
	cl, err := s.cfg.DB.GetClusterByUUID(c.Request.Context(), clusterUUID)
	if err != nil || cl == nil {
		return fmt.Errorf("reading cluster %s back: %v", clusterUUID, err)
	}
	ng, err := findNodeGroupView(cl, ngUUID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, newNodeGroupDetail(c, cl, ng))
	return nil
}

// nodeGroupPatchRules: only min/max_node_count, node_labels and node_taints
// may change (use resize for node_count).
var nodeGroupPatchRules = jsonpatch.Rules{
	Internal: []string{"/name", "/cluster_id", "/project_id", "/docker_volume_size", "/labels", "/flavor_id",
		"/image_id", "/node_addresses", "/node_count", "/role", "/is_default", "/stack_id", "/status",
		"/status_reason", "/version"},
	Literal: []string{"/node_labels", "/node_taints"},
}

var nodeGroupPatchable = map[string]body.Field{
	"min_node_count": {Name: "min_node_count", Kind: body.Int, Min: body.I64(0)},
	"max_node_count": {Name: "max_node_count", Kind: body.Int, Min: body.I64(0)},
	"node_labels":    {Name: "node_labels", Kind: body.Labels},
}

func nodeGroupDoc(cl *intent.ClusterState, ng *intent.NodeGroup) (map[string]any, error) {
	var taints any
	if ng.NodeTaints != nil {
		taints = ng.NodeTaints
	}
	var nodeLabels any
	if ng.NodeLabels != nil {
		nodeLabels = ng.NodeLabels
	}
	return jsonpatch.ToDoc(map[string]any{
		"id": ng.ID, "uuid": ng.UUID, "name": ng.Name, "cluster_id": cl.Cluster.UUID, "project_id": ng.ProjectID,
		"docker_volume_size": ng.DockerVolumeSize, "labels": ng.Labels, "flavor_id": ng.FlavorID,
		"image_id": ng.ImageID, "node_addresses": []string{}, "node_count": ng.NodeCount, "role": ng.Role,
		"max_node_count": ng.MaxNodeCount, "min_node_count": ng.MinNodeCount, "is_default": ng.IsDefault,
		"stack_id": cl.Cluster.StackID, "status": nil, "status_reason": nil, "version": nil,
		"node_labels": nodeLabels, "node_taints": taints,
		"created_at": timestamp(&ng.CreatedAt), "updated_at": timestamp(ng.UpdatedAt),
	})
}

func (s *Server) updateNodeGroup(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	raw, _ := c.GetRawData()
	ops, perr := jsonpatch.Parse(raw, nodeGroupPatchRules)
	if perr != nil {
		return perr
	}
	cl, view, err := s.nodeGroupTarget(c, "nodegroup:update")
	if err == nil {
		err = notWhileDeleting(cl, "Updating a nodegroup of")
	}
	if err == nil {
		req := &nodeGroupPatch{ops: ops, uuid: view.UUID, ident: c.Param("ng")}
		_, err = s.mutateCluster(c.Request.Context(), callerOf(c), cl.Dir, req.change)
	}
	if err != nil {
		return err
	}
	return s.respondNodeGroup(c, cl.UUID, view.UUID)
}

// nodeGroupPatch is a nodegroup PATCH: its operations on the nodegroup of
// uuid (ident as the route names it).
type nodeGroupPatch struct {
	ops         []jsonpatch.Op
	uuid, ident string
}

// change applies the patch to the nodegroup in the cluster's intent (a
// clusterChange); the patched nodegroup is validated as a whole.
func (p *nodeGroupPatch) change(_ *gitstore.Snapshot, st *intent.ClusterState, _ **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
	ng := findNodeGroupState(st, func(x *intent.NodeGroup) bool { return x.UUID == p.uuid })
	if ng == nil {
		return "", "", nil, apierr.NotFound("Nodegroup %s could not be found.", p.ident)
	}
	doc, err := nodeGroupDoc(st, ng)
	if err != nil {
		return "", "", nil, err
	}
	patched, perr := jsonpatch.Apply(doc, p.ops, nodeGroupPatchRules)
	if perr != nil {
		return "", "", nil, perr
	}
	changed, err := changedFields(doc, patched, nodeGroupPatchable)
	if err != nil || len(changed) == 0 {
		return "", "", nil, err
	}
	next := *ng
	what := make([]string, len(changed))
	for i, k := range changed {
		if what[i], err = setNodeGroupField(&next, k, patched[k]); err != nil {
			return "", "", nil, err
		}
	}
	if err := validateNodeGroup(&next); err != nil {
		return "", "", nil, err
	}
	next.UpdatedAt = intent.Ptr(now())
	*ng = next
	return fmt.Sprintf("update nodegroup %s: %s", ng.Name, strings.Join(what, ", ")), status.OpUpdate, nil, nil
}

// setNodeGroupField sets one patched attribute k of ng; it returns what
// the commit subject says of it. Other attributes are a 400.
func setNodeGroupField(ng *intent.NodeGroup, k string, patched any) (string, error) {
	if k == "node_taints" {
		t, err := parseTaints(ng.Name, patched)
		ng.NodeTaints = t
		return "node_taints", err
	}
	f, ok := nodeGroupPatchable[k]
	if !ok {
		return "", apierr.BadRequest("cannot change nodegroup property(ies) %s.", k)
	}
	v, _ := jsonpatch.DecodePatched(f, patched)
	switch k {
	case "min_node_count":
		n, _ := v.(int64)
		ng.MinNodeCount = n
		return fmt.Sprintf("min_node_count %d", n), nil
	case "max_node_count":
		n, ok := v.(int64)
		if !ok {
			ng.MaxNodeCount = nil
			return "no max_node_count", nil
		}
		ng.MaxNodeCount = intent.Ptr(n)
		return fmt.Sprintf("max_node_count %d", n), nil
	case "node_labels":
		m, _ := v.(map[string]string)
		ng.NodeLabels = m
		return "node_labels", nil
	}
	return "", apierr.BadRequest("cannot change nodegroup property(ies) %s.", k)
}

// deleteNodeGroup removes the nodegroup from the intent; the compiler drops
// its MachineDeployment from the topology in the same commit.
func (s *Server) deleteNodeGroup(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	cl, view, err := s.nodeGroupTarget(c, "nodegroup:delete")
	if err != nil {
		return err
	}
	if view.IsDefault {
		return apierr.BadRequest("Deleting a default nodegroup is not supported.")
	}
	if err := notWhileDeleting(cl, "Deleting a nodegroup of"); err != nil {
		return err
	}
	_, err = s.mutateCluster(c.Request.Context(), callerOf(c), cl.Dir, removeNodeGroup(view.UUID))
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// removeNodeGroup is the clusterChange that removes the nodegroup of uuid
// and its file (none when it is gone already: deleted concurrently).
func removeNodeGroup(uuid string) clusterChange {
	return func(_ *gitstore.Snapshot, st *intent.ClusterState, _ **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
		kept := st.NodeGroups[:0:0]
		var gone *intent.NodeGroup
		for i := range st.NodeGroups {
			if st.NodeGroups[i].UUID == uuid {
				gone = &st.NodeGroups[i]
				continue
			}
			kept = append(kept, st.NodeGroups[i])
		}
		if gone == nil {
			return "", "", nil, nil
		}
		st.NodeGroups = kept
		return fmt.Sprintf("delete nodegroup %s", gone.Name), status.OpUpdate,
			[]gitstore.Change{{Path: intent.NodeGroupPath(st.Dir, gone.Name), Delete: true}}, nil
	}
}
