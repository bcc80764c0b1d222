package restapi

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"golang.org/x/mod/semver"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/body"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

var resizeFields = []body.Field{
	{Name: "node_count", Kind: body.Int, Mandatory: true, Min: body.I64(0)},
	{Name: "nodes_to_remove", Kind: body.StringList},
	{Name: "nodegroup", Kind: body.String, MinLen: 1, MaxLen: 255},
}

var upgradeFields = []body.Field{
	{Name: "cluster_template", Kind: body.String, Mandatory: true, MinLen: 1, MaxLen: 255},
	{Name: "max_batch_size", Kind: body.Int, Min: body.I64(1)},
	{Name: "nodegroup", Kind: body.String, MinLen: 1, MaxLen: 255},
}

// matchNodeGroup resolves a nodegroup ident as Magnum does: an int-like
// ident is the internal id, a UUID-like one the uuid, anything else the
// name (unique within a cluster).
func matchNodeGroup(ident string) func(*intent.NodeGroup) bool {
	return func(ng *intent.NodeGroup) bool {
		switch {
		case isIntLike(ident):
			return strconv.FormatInt(ng.ID, 10) == ident
		case uuidLike.MatchString(ident):
			return strings.EqualFold(strings.ReplaceAll(ng.UUID, "-", ""), strings.ReplaceAll(ident, "-", ""))
		}
		return ng.Name == ident
	}
}

// resizeCluster is POST /v1/clusters/{ident}/actions/resize (1.7+). The new
// count and the machines to remove first are recorded in the nodegroup's
// intent; the compiler sets the replicas and the reconciler marks the
// machines with cluster.x-k8s.io/delete-machine.
func (s *Server) resizeCluster(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "cluster_resize_req", resizeFields)
	if perr != nil {
		return perr
	}
	n := *b.Integer("node_count")
	// Magnum checks this before it looks the cluster up.
	if n == 0 && !versionOf(c).AtLeast(10) {
		return errZeroNodeCount()
	}
	// Magnum resolves the cluster without all_tenants here: an admin gets a
	// 404 for another project's cluster.
	view, err := s.lookupCluster(c, c.Param("ident"), false)
	if err != nil {
		return err
	}
	if err := s.enforce(c, "cluster:resize", clusterTarget(view)); err != nil {
		return err
	}
	ident := ""
	if x := b.Str("nodegroup"); x != nil {
		ident = *x
	}
	var remove []string
	if l, ok := b["nodes_to_remove"].([]string); ok {
		seen := map[string]bool{}
		for _, x := range l {
			if x = strings.TrimSpace(x); x != "" && !seen[x] {
				seen[x] = true
				remove = append(remove, x)
			}
		}
	}
	// Validate against the read model first so that the common errors need
	// no snapshot; the same checks run again on the committed state.
	if err := notWhileDeleting(view, "Resizing"); err != nil {
		return err
	}
	_, err = s.mutateCluster(c, view.Dir, func(_ *gitstore.Snapshot, st *intent.ClusterState, _ **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
		var ng *intent.NodeGroup
		if ident == "" {
			ng = defaultWorker(st)
			ident = intent.DefaultWorkerNodeGroup
		} else {
			ng = findNodeGroupState(st, matchNodeGroup(ident))
		}
		if ng == nil {
			return "", "", nil, apierr.NotFound("Nodegroup %s could not be found.", ident)
		}
		if err := resizeBounds(ng, n); err != nil {
			return "", "", nil, err
		}
		if ng.Role == intent.RoleMaster && n > 1 && !st.Cluster.MasterLBEnabled {
			return "", "", nil, apierr.BadRequest("master_count must be 1 when master_lb_enabled is False")
		}
		// nodes_to_remove only means something when the nodegroup shrinks
		// (Magnum's drivers ignore it otherwise); a grow clears a stale list.
		var toRemove []string
		if n < ng.NodeCount {
			toRemove = remove
			if len(toRemove) > int(ng.NodeCount-n) {
				return "", "", nil, apierr.BadRequest("nodes_to_remove names %d nodes but resizing %s from %d to %d removes %d.",
					len(toRemove), ng.Name, ng.NodeCount, n, ng.NodeCount-n)
			}
		}
		if n == ng.NodeCount {
			return "", "", nil, nil // nothing to do; a past list is harmless
		}
		subject := fmt.Sprintf("resize %s %d → %d", ng.Name, ng.NodeCount, n)
		if len(toRemove) > 0 {
			subject += " (removing " + strings.Join(toRemove, ", ") + ")"
		}
		ng.NodeCount, ng.NodesToRemove, ng.UpdatedAt = n, toRemove, intent.Ptr(now())
		st.Cluster.UpdatedAt = intent.Ptr(now())
		return subject, status.OpResize, nil, nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, uuidReply{UUID: view.UUID})
	return nil
}

// errZeroNodeCount is Magnum's ZeroNodeCountNotSupported: below 1.10,
// node_count 0 on cluster create, cluster PATCH and resize (of any
// nodegroup). Nodegroup create takes 0 at 1.9, as in Magnum, which has no
// such check there.
func errZeroNodeCount() error {
	return apierr.BadRequest("Resizing a nodegroup to zero is not supported in the provided microversion.")
}

// upgradeCluster is POST /v1/clusters/{ident}/actions/upgrade (1.8+): the
// cluster moves to another template. Every label the new template changes
// relative to the old one is carried over (kube_tag, images, add-on
// versions...), as are the image and the ClusterClass of this keel release.
func (s *Server) upgradeCluster(c *gin.Context) error {
	if !versionOf(c).AtLeast(8) {
		return apierr.BadRequest("Cluster upgrade is not supported in the provided microversion.")
	}
	if err := checkQuery(c); err != nil {
		return err
	}
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "cluster_upgrade_req", upgradeFields)
	if perr != nil {
		return perr
	}
	view, err := s.authorizedCluster(c, "cluster:upgrade_all_projects", "cluster:upgrade")
	if err != nil {
		return err
	}
	newT, err := s.findTemplate(c, *b.Str("cluster_template"), false)
	if err != nil {
		return err
	}
	if newT.Hidden && !auth.Of(c).IsAdmin() && newT.UUID != view.ClusterTemplateID {
		return notAuthorized()
	}
	ident := ""
	if x := b.Str("nodegroup"); x != nil {
		ident = *x
	}
	// Magnum's upgrade is a synchronous call that refuses clusters whose
	// last operation did not complete.
	if st := view.Result.Status; !strings.HasSuffix(st, "_COMPLETE") || !view.InGit {
		return apierr.BadRequest("Upgrading a cluster when status is \"%s\" is not supported.", st)
	}
	_, err = s.mutateClusterResolving(c, view.Dir, view.ProjectID, func(_ *gitstore.Snapshot, st *intent.ClusterState, tmpl **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
		oldT := *tmpl
		var ng *intent.NodeGroup
		if ident != "" {
			if ng = findNodeGroupState(st, matchNodeGroup(ident)); ng == nil {
				return "", "", nil, apierr.NotFound("Nodegroup %s could not be found.", ident)
			}
			if newT.UUID != st.Cluster.ClusterTemplateID && !ng.IsDefault {
				return "", "", nil, apierr.Conflict("Cluster template is not valid for upgrade: Nodegroup %s can be upgraded only to match cluster's template (%s).", ng.Name, oldT.Name)
			}
		}
		if ng != nil && !ng.IsDefault {
			return s.upgradeNodeGroup(st, oldT, ng)
		}
		return s.upgradeWholeCluster(st, oldT, newT, tmpl)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, uuidReply{UUID: view.UUID})
	return nil
}

// templateLabelChanges is what a template move changes in labels: the keys
// the new template sets to a different value (or newly), and the keys it
// drops.
func templateLabelChanges(oldT, newT map[string]string) (set map[string]string, drop []string) {
	set = map[string]string{}
	for k, v := range newT {
		if ov, ok := oldT[k]; !ok || ov != v {
			set[k] = v
		}
	}
	for k := range oldT {
		if _, ok := newT[k]; !ok {
			drop = append(drop, k)
		}
	}
	sort.Strings(drop)
	return set, drop
}

func applyLabelChanges(labels map[string]string, set map[string]string, drop []string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		out[k] = v
	}
	for _, k := range drop {
		delete(out, k)
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}

// checkKubeUpgrade refuses a downgrade and a skip of a minor version:
// kubeadm upgrades one minor at a time.
func checkKubeUpgrade(from, to string) error {
	if from == "" || to == "" || from == to {
		return nil
	}
	if !semver.IsValid(from) || !semver.IsValid(to) {
		return apierr.BadRequest("Cannot upgrade kube_tag from %s to %s: both must be versions vX.Y.Z.", from, to)
	}
	if semver.Compare(to, from) < 0 {
		return apierr.BadRequest("Cannot upgrade kube_tag from %s to %s: downgrades are not supported.", from, to)
	}
	fm, tm := semver.MajorMinor(from), semver.MajorMinor(to)
	fmin, _ := strconv.Atoi(strings.SplitN(fm, ".", 2)[1])
	tmin, _ := strconv.Atoi(strings.SplitN(tm, ".", 2)[1])
	if semver.Major(from) != semver.Major(to) || tmin > fmin+1 {
		return apierr.BadRequest("Cannot upgrade kube_tag from %s to %s: Kubernetes upgrades one minor version at a time (next is %s.%d).", from, to, semver.Major(from), fmin+1)
	}
	return nil
}

// checkUpgradeTemplateFields refuses an upgrade to a template whose
// fields differ where a running cluster cannot follow: the API server port
// (the load balancer listener, the endpoint clients hold, every
// kube-apiserver's bind port) and the CNI (switching it strands every pod).
// The labels' equivalents are refused by the catalogue's immutable marks.
func checkUpgradeTemplateFields(oldT, newT *intent.ClusterTemplate) error {
	port := func(p *int64) string {
		if p == nil {
			return "6443 (the default)"
		}
		return strconv.FormatInt(*p, 10)
	}
	for _, f := range []struct{ name, from, to string }{
		{"apiserver_port", port(oldT.APIServerPort), port(newT.APIServerPort)},
		{"network_driver", intent.Deref(oldT.NetworkDriver), intent.Deref(newT.NetworkDriver)},
	} {
		if strings.TrimSuffix(f.from, " (the default)") != strings.TrimSuffix(f.to, " (the default)") {
			return apierr.BadRequest("Cannot upgrade to template %s: its %s is %s, the cluster's is %s; a running cluster cannot change it (create a new cluster instead).",
				newT.Name, f.name, f.to, f.from)
		}
	}
	return nil
}

func (s *Server) upgradeWholeCluster(st *intent.ClusterState, oldT, newT *intent.ClusterTemplate, tmpl **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
	cl := &st.Cluster
	if err := checkUpgradeTemplateFields(oldT, newT); err != nil {
		return "", "", nil, err
	}
	cat, err := s.siteCatalogue()
	if err != nil {
		return "", "", nil, err
	}
	set, drop := templateLabelChanges(oldT.Labels, newT.Labels)
	if i := slices.Index(drop, schemas.LabelKubeTag); i >= 0 {
		// A template without kube_tag means the default: pinned, as at
		// create, so the cluster's intent keeps a concrete version.
		drop = slices.Delete(drop, i, i+1)
		set[schemas.LabelKubeTag] = cat.String(nil, schemas.LabelKubeTag)
	}
	newLabels := applyLabelChanges(cl.Labels, set, drop)
	if err := checkKubeUpgrade(cl.Labels[schemas.LabelKubeTag], newLabels[schemas.LabelKubeTag]); err != nil {
		return "", "", nil, err
	}
	if vs := cat.ImmutableChanges(schemas.ScopeCluster, cl.Labels, newLabels); len(vs) > 0 {
		return "", "", nil, apierr.BadRequest("Cannot upgrade to template %s: %s", newT.Name, violationText(vs))
	}
	if err := s.validateLabels(schemas.ScopeCluster, newLabels); err != nil {
		return "", "", nil, err
	}
	class := cl.ClusterClass
	if s.cfg.ClusterClass != "" {
		class = s.cfg.ClusterClass
	}
	sameLabels := sameJSON(cl.Labels, newLabels)
	if newT.UUID == cl.ClusterTemplateID && sameLabels && class == cl.ClusterClass && oldT.ImageID == newT.ImageID {
		return "", "", nil, nil
	}
	subject := fmt.Sprintf("upgrade to template %s", newT.Name)
	if from, to := cl.Labels[schemas.LabelKubeTag], newLabels[schemas.LabelKubeTag]; from != to {
		subject += fmt.Sprintf(" (kube_tag %s → %s)", from, to)
	}
	for i := range st.NodeGroups {
		ng := &st.NodeGroups[i]
		// A nodegroup on the old template's image follows the template; one
		// given its own image keeps it.
		if ng.ImageID == nil || *ng.ImageID == oldT.ImageID {
			ng.ImageID = intent.Ptr(newT.ImageID)
		}
		ng.Labels = applyLabelChanges(ng.Labels, set, drop)
		ng.UpdatedAt = intent.Ptr(now())
	}
	cl.Labels = newLabels
	cl.ClusterTemplateID = newT.UUID
	cl.ClusterClass = class
	cl.UpdatedAt = intent.Ptr(now())
	*tmpl = newT
	return subject, status.OpUpgrade, nil, nil
}

// upgradeNodeGroup brings a non-default nodegroup to its cluster's
// template: its image and the template's labels as the cluster has them.
func (s *Server) upgradeNodeGroup(st *intent.ClusterState, t *intent.ClusterTemplate, ng *intent.NodeGroup) (string, string, []gitstore.Change, error) {
	labels := map[string]string{}
	for k, v := range ng.Labels {
		labels[k] = v
	}
	// kube_tag too when the template leaves it to the default: the
	// cluster holds the version it was pinned to.
	for _, k := range append(slices.Collect(maps.Keys(t.Labels)), schemas.LabelKubeTag) {
		if v, ok := st.Cluster.Labels[k]; ok {
			labels[k] = v
		}
	}
	if err := checkKubeUpgrade(ng.Labels[schemas.LabelKubeTag], labels[schemas.LabelKubeTag]); err != nil {
		return "", "", nil, err
	}
	if intent.Deref(ng.ImageID) == t.ImageID && sameJSON(ng.Labels, labels) {
		return "", "", nil, nil
	}
	ng.ImageID = intent.Ptr(t.ImageID)
	ng.Labels = labels
	ng.UpdatedAt = intent.Ptr(now())
	return fmt.Sprintf("upgrade nodegroup %s to template %s", ng.Name, t.Name), status.OpUpgrade, nil, nil
}

func violationText(vs []schemas.Violation) string {
	msgs := make([]string, len(vs))
	for i, v := range vs {
		msgs[i] = v.String()
	}
	return strings.Join(msgs, "; ")
}
