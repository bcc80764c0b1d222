package restapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/body"
	"github.com/openkeel/keel/restapi/write"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

var clusterNamePattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_.-]*$`)

var clusterFields = []body.Field{
	{Name: "name", Kind: body.String, MinLen: 1, MaxLen: 242, Pattern: clusterNamePattern},
	{Name: "cluster_template_id", Kind: body.String, Mandatory: true, MinLen: 1, MaxLen: 255},
	{Name: "keypair", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "node_count", Kind: body.Int, Min: body.I64(0)},
	{Name: "master_count", Kind: body.Int, Min: body.I64(1)},
	{Name: "docker_volume_size", Kind: body.Int, Min: body.I64(1)},
	{Name: "master_flavor_id", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "flavor_id", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "fixed_network", Kind: body.String},
	{Name: "fixed_subnet", Kind: body.String},
	{Name: "labels", Kind: body.Labels},
	{Name: "create_timeout", Kind: body.Int, Min: body.I64(0)},
	{Name: "discovery_url", Kind: body.String},
	{Name: "floating_ip_enabled", Kind: body.Bool},
	{Name: "master_lb_enabled", Kind: body.Bool},
	{Name: "merge_labels", Kind: body.Bool},
	// Ignored if sent, as Magnum does.
	{Name: "uuid", Kind: body.Any}, {Name: "status", Kind: body.Any}, {Name: "status_reason", Kind: body.Any},
	{Name: "health_status", Kind: body.Any}, {Name: "health_status_reason", Kind: body.Any}, {Name: "faults", Kind: body.Any},
	{Name: "labels_overridden", Kind: body.Any}, {Name: "labels_added", Kind: body.Any}, {Name: "labels_skipped", Kind: body.Any},
	// Read-only.
	{Name: "links", Kind: body.Any, ReadOnly: true}, {Name: "stack_id", Kind: body.Any, ReadOnly: true},
	{Name: "cluster_id", Kind: body.Any, ReadOnly: true}, {Name: "api_address", Kind: body.Any, ReadOnly: true},
	{Name: "coe_version", Kind: body.Any, ReadOnly: true}, {Name: "container_version", Kind: body.Any, ReadOnly: true},
	{Name: "project_id", Kind: body.Any, ReadOnly: true}, {Name: "user_id", Kind: body.Any, ReadOnly: true},
	{Name: "node_addresses", Kind: body.Any, ReadOnly: true}, {Name: "master_addresses", Kind: body.Any, ReadOnly: true},
	{Name: "created_at", Kind: body.Any, ReadOnly: true}, {Name: "updated_at", Kind: body.Any, ReadOnly: true},
}

func (s *Server) clusterRoutes(r *gin.RouterGroup) {
	r.GET("/clusters", s.requirePolicy("cluster:get_all"),
		s.requireAllProjects("cluster:get_all_all_projects"), handle(s.listClusters(false)))
	r.GET("/clusters/detail", s.requirePolicy("cluster:detail"),
		s.requireAllProjects("cluster:detail_all_projects"), handle(s.listClusters(true)))
	r.GET("/clusters/:ident", s.requireAllProjects("cluster:get_one_all_projects"),
		s.requirePolicy("cluster:get"), handle(s.getCluster))
	r.POST("/clusters", s.requirePolicy("cluster:create"), handle(s.createCluster))
}

// clusterScope is the caller's project, or every project once the route
// switched on all projects (allProjects).
func (s *Server) clusterScope(c *gin.Context) readmodel.Scope {
	return readmodel.Scope{ProjectID: auth.Of(c).ProjectID, All: spansAllProjects(c)}
}

// nilIfEmpty is null for an empty string.
func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) listClusters(detail bool) handler {
	return func(c *gin.Context) error {
		if err := checkQuery(c, "limit", "marker", "sort_key", "sort_dir"); err != nil {
			return err
		}
		res := "clusters"
		if detail {
			res = "clusters/detail"
		}
		pg, inOrder, err := idPage(c, s.cfg.MaxLimit)
		if err != nil {
			return err
		}
		if inOrder {
			return s.listClusterPage(c, pg, res, detail)
		}
		vs, err := s.cfg.DB.ListClusters(c.Request.Context(), s.clusterScope(c))
		if err != nil {
			return err
		}
		page, next, perr := paginate(c, s.clusterItems(c, vs, detail), s.cfg.MaxLimit, res)
		if perr != nil {
			return perr
		}
		c.JSON(http.StatusOK, clustersView{Clusters: page, Next: next})
		return nil
	}
}

// listClusterPage answers a list in the default order, which the read
// model pages: only the page's clusters are read and rendered.
func (s *Server) listClusterPage(c *gin.Context, pg readmodel.Page, res string, detail bool) error {
	vs, err := s.cfg.DB.ListClustersPage(c.Request.Context(), s.clusterScope(c), pg)
	if errors.Is(err, readmodel.ErrMarkerNotFound) {
		return apierr.NotFound("Marker %s could not be found.", pg.Marker)
	} else if err != nil {
		return err
	}
	next := ""
	if len(vs) == pg.Limit && len(vs) > 0 {
		next = nextURL(c, res, "id", pageDir(pg), pg.Limit, vs[len(vs)-1].UUID)
	}
	c.JSON(http.StatusOK, clustersView{Clusters: s.clusterItems(c, vs, detail), Next: next})
	return nil
}

// clusterItems are the summaries, or details, of vs. A detail shows its
// template: each is read once, not once per cluster.
func (s *Server) clusterItems(c *gin.Context, vs []*readmodel.ClusterView, detail bool) []any {
	items := make([]any, 0, len(vs))
	tmpls := map[string]*intent.ClusterTemplate{}
	for _, v := range vs {
		if !detail {
			items = append(items, newClusterSummary(c, v))
			continue
		}
		tmpl, read := tmpls[v.ClusterTemplateID]
		if !read {
			tmpl, _ = s.cfg.DB.GetTemplateByUUID(c.Request.Context(), v.ClusterTemplateID)
			tmpls[v.ClusterTemplateID] = tmpl
		}
		items = append(items, s.clusterDetail(c, v, tmpl))
	}
	return items
}

func (s *Server) getCluster(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	v, err := s.lookupCluster(c, c.Param("ident"), spansAllProjects(c))
	if err == nil {
		err = s.enforce(c, "cluster:get", clusterTarget(v)) // Magnum: on the cluster
	}
	if err != nil {
		return err
	}
	tmpl, _ := s.cfg.DB.GetTemplateByUUID(c.Request.Context(), v.ClusterTemplateID)
	out := s.clusterDetail(c, v, tmpl)
	out.withFaults(v)
	c.JSON(http.StatusOK, out)
	return nil
}

func (s *Server) createCluster(c *gin.Context) error {
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "cluster", clusterFields)
	if perr != nil {
		return perr
	}
	ctx, who := c.Request.Context(), callerOf(c)
	r, err := s.newCluster(c, b, who)
	uuidOut := ""
	if err == nil {
		uuidOut, err = s.createClusterIn(ctx, who, r)
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, uuidReply{UUID: uuidOut})
	return nil
}

// newCluster is the create a body asks for, checked in Magnum's order:
// the template (unknown: a 400 below 1.10), node_count 0 (below 1.10,
// after the template lookup, as Magnum's decorators), a hidden template,
// then the cluster itself (checkNewCluster, with its OpenStack lookups).
func (s *Server) newCluster(c *gin.Context, b body.Body, who requester) (*newClusterRequest, error) {
	v := versionOf(c)
	tmpl, err := s.findTemplate(c, *b.Str("cluster_template_id"), true)
	if err != nil {
		if e, ok := apierr.As(err); ok && e.Status == http.StatusNotFound && !v.AtLeast(10) {
			e.Status = http.StatusBadRequest // Magnum below 1.10
		}
		return nil, err
	}
	r := &newClusterRequest{tmpl: tmpl, masters: 1, nodes: 1}
	if n := b.Integer("master_count"); n != nil {
		r.masters = *n
	}
	if n := b.Integer("node_count"); n != nil {
		r.nodes = *n
	}
	if r.nodes == 0 && !v.AtLeast(10) {
		return nil, errZeroNodeCount()
	}
	if tmpl.Hidden && !who.creds.IsAdmin() {
		return nil, apierr.Forbidden("Not authorized.")
	}
	r.cl = s.newClusterIntent(b, tmpl, who.creds)
	r.lk = s.newResolver(r.cl.ProjectID, r.cl.UserID, intent.DefaultMasterNodeGroup, intent.DefaultWorkerNodeGroup)
	r.minNodes, err = s.checkNewCluster(c.Request.Context(), r.lk, tmpl, &r.cl, r.masters)
	return r, err
}

// createClusterIn makes the cluster's own application credential, last
// (after every check that can refuse the request) and deleted again
// unless the commit holds it, then commits the cluster; it returns its
// uuid.
func (s *Server) createClusterIn(ctx context.Context, who requester, r *newClusterRequest) (string, error) {
	cred, err := s.createClusterCredential(ctx, who, r.cl.ProjectID, r.cl.UserID, r.cl.UUID, r.cl.Name)
	if err != nil {
		return "", err
	}
	r.cred = cred
	return s.commitNewCluster(ctx, who, *r)
}

// newClusterRequest is a checked create: the cluster asked for, its
// template, its counts, the lookups made for it and its application
// credential (nil when keel makes none).
type newClusterRequest struct {
	cl                       intent.Cluster
	tmpl                     *intent.ClusterTemplate
	masters, nodes, minNodes int64
	lk                       *resolver
	cred                     *intent.ClusterCredential
}

// commitNewCluster prepares the cluster's folder on HEAD outside the
// repository's lock, then commits it (rebased, or prepared again, under the
// lock); it returns the new cluster's uuid. A failed create drops the
// server groups and the application credential it made.
func (s *Server) commitNewCluster(ctx context.Context, who requester, r newClusterRequest) (string, error) {
	writeOpts := s.clusterWriteOptions()
	if r.cred != nil {
		writeOpts = append(writeOpts, repo.WithCredential(r.cred))
	}
	// The stack id names the server groups the preparation ensures: a
	// preparation made again keeps it unless taken meanwhile, so that it
	// finds its groups instead of making others.
	var stackID string
	// bounded: the CPU part (compile, keys, encryption, blob writes) waits
	// for a write path Slot; the OpenStack lookups before it do not (on a real
	// cloud they wait on Nova, and must not hold a slot while they do).
	prepare := func(base, render *gitstore.Snapshot, bounded bool) (*preparedCluster, error) {
		st, err := s.newClusterState(base, r.cl, r.masters, r.nodes, r.minNodes, r.tmpl, stackID)
		if err != nil {
			return nil, err
		}
		stackID = st.Cluster.StackID
		facts, err := r.lk.clusterFacts(ctx, render, r.tmpl, st.ClusterState, factRefs{})
		if err != nil {
			return nil, err
		}
		if bounded {
			release, ok := s.writes.Slot(ctx)
			if !ok {
				return nil, ctx.Err()
			}
			defer release()
		}
		changes, err := repo.WriteCluster(render, r.tmpl, st.ClusterState, facts, writeOpts...)
		if err != nil {
			return nil, err
		}
		if bounded {
			_ = s.cfg.Store.WriteBlobs(changes)
		}
		return &preparedCluster{st: st, changes: changes, read: render}, nil
	}
	// The bulk of the work (keys, facts, compiling, encrypting, writing the
	// blobs) depends on nothing other writers commit meanwhile, so it is
	// done here, on HEAD as it is, before the repository's lock; the commit
	// then only re-derives what does (quota, a unique stack id, the ids)
	// and redoes the rest under the lock only if something it read has
	// changed since. Errors are left to the commit, which reports them.
	var pre *preparedCluster
	s.writes.Prepare(func(sn *gitstore.Snapshot) (err error) {
		if pre, err = prepare(sn, sn.Tracked(), true); err != nil {
			pre = nil
		}
		return err
	})
	if s.afterPrepare != nil {
		s.afterPrepare()
	}
	var uuidOut, dirOut string
	err := s.writes.Commit(ctx, who.Caller, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		p, err := s.rebaseCluster(sn, pre)
		if err == nil && p == nil {
			p, err = prepare(sn, sn, false)
		}
		if err != nil {
			return nil, err
		}
		seqChanges, err := p.st.sequenceChange(sn)
		if err != nil {
			return nil, err
		}
		uuidOut, dirOut = p.st.Cluster.UUID, p.st.Dir
		return who.Commit(fmt.Sprintf("cluster %s: create (%d master, %d nodes)", r.cl.Name, r.masters, r.nodes),
			status.OpCreate, append(p.changes, seqChanges)), nil
	})
	s.dropUnusedServerGroups(ctx, who, r.lk, dirOut)
	if err != nil && r.cred != nil && !s.committed(dirOut) {
		s.dropClusterCredential(ctx, who, r.cl.ProjectID, r.cred)
	}
	return uuidOut, err
}

// newClusterIntent is the cluster a create asks for: the template's
// values, overridden by the request's fields, owned by the caller.
func (s *Server) newClusterIntent(b body.Body, tmpl *intent.ClusterTemplate, creds *auth.Credentials) intent.Cluster {
	now := time.Now().UTC().Truncate(time.Second)
	cl := intent.Cluster{
		TypeMeta:          intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		UUID:              uuid.NewString(),
		Name:              generateName("cluster"),
		ProjectID:         creds.ProjectID,
		UserID:            creds.UserID,
		ClusterTemplateID: tmpl.UUID,
		Keypair:           tmpl.KeypairID,
		DockerVolumeSize:  tmpl.DockerVolumeSize,
		MasterFlavorID:    tmpl.MasterFlavorID,
		FlavorID:          tmpl.FlavorID,
		FixedNetwork:      tmpl.FixedNetwork,
		FixedSubnet:       tmpl.FixedSubnet,
		CreateTimeout:     60,
		FloatingIPEnabled: tmpl.FloatingIPEnabled,
		MasterLBEnabled:   tmpl.MasterLBEnabled,
		ClusterClass:      s.cfg.ClusterClass,
		CreatedAt:         now,
	}
	if n := b.Str("name"); n != nil {
		cl.Name = *n
	}
	for k, p := range map[string]**string{"keypair": &cl.Keypair, "master_flavor_id": &cl.MasterFlavorID,
		"flavor_id": &cl.FlavorID, "fixed_network": &cl.FixedNetwork, "fixed_subnet": &cl.FixedSubnet,
		"discovery_url": &cl.DiscoveryURL} {
		if x := b.Str(k); x != nil {
			*p = x
		}
	}
	if n := b.Integer("docker_volume_size"); n != nil {
		cl.DockerVolumeSize = n
	}
	if n := b.Integer("create_timeout"); n != nil {
		cl.CreateTimeout = *n
	}
	if x := b.Boolean("floating_ip_enabled"); x != nil {
		cl.FloatingIPEnabled = *x
	}
	if x := b.Boolean("master_lb_enabled"); x != nil {
		cl.MasterLBEnabled = *x
	}
	given, present := b.Labels("labels")
	merge := b.Boolean("merge_labels") != nil && *b.Boolean("merge_labels")
	cl.Labels = schemas.MergeLabels(tmpl.Labels, given, present, merge)
	return cl
}

// checkFlavorsGiven refuses a cluster whose machines would have no Nova
// flavor: CAPO's OpenStackMachineTemplate requires one, so the topology
// controller could never make its machines and the cluster would wait in
// CREATE_IN_PROGRESS until create_timeout. Magnum refuses it too (its
// root-volume check, `Unable to find flavor None.`), but only when
// boot_volume_size is 0; keel refuses it always, naming the field.
func checkFlavorsGiven(tmpl *intent.ClusterTemplate, cl *intent.Cluster) error {
	for _, f := range []struct {
		field string
		value *string
	}{{"master_flavor_id", cl.MasterFlavorID}, {"flavor_id", cl.FlavorID}} {
		if intent.Deref(f.value) == "" {
			return apierr.BadRequest("Unable to find flavor None. The cluster has no %s: give one in the request "+
				"or in its cluster template %s.", f.field, cmp.Or(tmpl.Name, tmpl.UUID))
		}
	}
	return nil
}

// checkNewCluster makes the checks of a create that need OpenStack and
// the catalogue, before anything is made: the resources it references
// (Magnum's validate_os_resources, then the keypair), the root disks, the
// labels (kube_tag pinned into them); it returns the default worker's
// autoscaler minimum.
func (s *Server) checkNewCluster(ctx context.Context, lk *resolver, tmpl *intent.ClusterTemplate, cl *intent.Cluster, masterCount int64) (int64, error) {
	// OpenStack resources (Magnum's validate_os_resources, then the
	// keypair), resolved before the commit: the commit only records them.
	if err := checkFlavorsGiven(tmpl, cl); err != nil {
		return 0, err
	}
	refs := clusterRefs(tmpl, cl, nil)
	facts, err := lk.facts(ctx, refs, refs, intent.Facts{})
	if err == nil {
		// Magnum's root-volume check: no flavor with a 0 GB root disk
		// unless boot_volume_size gives the machines a boot volume.
		err = checkRootDisks(facts, lk.rootDiskFlavors(refs))
	}
	if err != nil {
		return 0, err
	}
	if err := lk.validateCluster(ctx, cl); err != nil {
		return 0, err
	}
	if masterCount > 1 && !cl.MasterLBEnabled {
		return 0, apierr.BadRequest("master_count must be 1 when master_lb_enabled is False")
	}
	if err := s.pinKubeTag(cl.Labels); err != nil {
		return 0, err
	}
	if err := s.validateLabels(schemas.ScopeCluster, cl.Labels); err != nil {
		return 0, err
	}
	// The default worker's autoscaler minimum comes from the min_node_count
	// label, as in Magnum.
	var minNodes int64
	if v, ok := cl.Labels[schemas.LabelMinNodeCount]; ok {
		if minNodes, err = schemas.ParseInt(v); err != nil {
			return 0, apierr.BadRequest("Invalid labels: %s: %s", schemas.LabelMinNodeCount, err)
		}
	}
	return minNodes, nil
}

type newCluster struct {
	*intent.ClusterState
	seq *intent.Sequences
}

// newClusterState assigns the ids and stack id on the snapshot being
// committed, and checks the quota there, so both are atomic with the write.
// stackID, when not "" and still free on sn, is the stack id (a
// preparation made again).
func (s *Server) newClusterState(sn *gitstore.Snapshot, cl intent.Cluster, masters, nodes, minNodes int64, tmpl *intent.ClusterTemplate, stackID string) (*newCluster, error) {
	if err := s.checkClusterQuota(sn, cl.ProjectID); err != nil {
		return nil, err
	}
	seq, err := intent.ReadSequences(sn)
	if err != nil {
		return nil, err
	}
	used := stackID == ""
	if !used {
		if used, err = s.stackIDs.InUse(sn, stackID); err != nil {
			return nil, err
		}
	}
	if used {
		if stackID, err = s.stackIDs.New(sn); err != nil {
			return nil, err
		}
	}
	seq.Clusters++
	cl.ID = seq.Clusters
	cl.StackID = stackID
	st := &intent.ClusterState{Dir: intent.ClusterDirOf(&cl), Cluster: cl}
	mk := func(name, role string, count int64) intent.NodeGroup {
		seq.NodeGroups++
		ng := intent.NodeGroup{
			TypeMeta:  intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
			ID:        seq.NodeGroups,
			UUID:      uuid.NewString(),
			Name:      name,
			ClusterID: cl.UUID,
			ProjectID: cl.ProjectID,
			Role:      role,
			IsDefault: true,
			NodeCount: count,
			ImageID:   intent.Ptr(tmpl.ImageID),
			Labels:    cl.Labels,
			CreatedAt: cl.CreatedAt,
		}
		if role == intent.RoleMaster {
			ng.FlavorID = cl.MasterFlavorID
		} else {
			ng.FlavorID = cl.FlavorID
			ng.MinNodeCount = minNodes
		}
		ng.DockerVolumeSize = cl.DockerVolumeSize
		return ng
	}
	st.NodeGroups = []intent.NodeGroup{
		mk(intent.DefaultMasterNodeGroup, intent.RoleMaster, masters),
		mk(intent.DefaultWorkerNodeGroup, intent.RoleWorker, nodes),
	}
	return &newCluster{ClusterState: st, seq: seq}, nil
}

// checkClusterQuota refuses a new cluster in a project at its limit.
func (s *Server) checkClusterQuota(sn *gitstore.Snapshot, project string) error {
	existing, err := sn.List(path.Join(intent.ProjectsDir, project, "clusters"))
	if err != nil {
		return err
	}
	limit := s.cfg.MaxClustersPerProject
	if q, err := readQuota(sn, project); err != nil {
		return err
	} else if q != nil {
		limit = q.HardLimit
	}
	if int64(len(existing)) >= limit {
		return apierr.Forbidden("Resource limit exceeded: You have reached the maximum clusters per project, %d. Please delete a cluster before creating a new one or contact your administrator to raise the quota.", limit)
	}
	return nil
}

// preparedCluster is a new cluster's commit, made on the snapshot read.
type preparedCluster struct {
	st      *newCluster
	changes []gitstore.Change
	read    *gitstore.Snapshot
}

// rebaseCluster moves a cluster prepared on an earlier HEAD onto sn: the
// quota is checked and the integer ids assigned again on sn, and the
// intent documents that carry the ids rewritten; the stack id must still
// be unused, and everything else the preparation read unchanged (nothing
// else it wrote depends on the ids). nil when it cannot be moved: the
// caller prepares again on sn.
func (s *Server) rebaseCluster(sn *gitstore.Snapshot, pre *preparedCluster) (*preparedCluster, error) {
	if pre == nil || !pre.read.ReadsSame(sn) {
		return nil, nil
	}
	cl := pre.st.Cluster
	if err := s.checkClusterQuota(sn, cl.ProjectID); err != nil {
		return nil, err
	}
	if used, err := s.stackIDs.InUse(sn, cl.StackID); err != nil || used {
		return nil, err
	}
	seq, err := intent.ReadSequences(sn)
	if err != nil {
		return nil, err
	}
	seq.Clusters++
	cl.ID = seq.Clusters
	st := &intent.ClusterState{Dir: pre.st.Dir, Cluster: cl, NodeGroups: slices.Clone(pre.st.NodeGroups)}
	for i := range st.NodeGroups {
		seq.NodeGroups++
		st.NodeGroups[i].ID = seq.NodeGroups
	}
	changes := slices.Clone(pre.changes)
	for i, ch := range changes {
		var doc any
		switch {
		case ch.Delete:
			continue
		case ch.Path == path.Join(st.Dir, intent.ClusterFile):
			doc = st.Cluster
		default:
			for _, ng := range st.NodeGroups {
				if ch.Path == intent.NodeGroupPath(st.Dir, ng.Name) {
					doc = ng
				}
			}
		}
		if doc == nil {
			continue
		}
		if changes[i], err = repo.Document(ch.Path, doc); err != nil {
			return nil, err
		}
	}
	return &preparedCluster{st: &newCluster{ClusterState: st, seq: seq}, changes: changes, read: pre.read}, nil
}

func (n *newCluster) sequenceChange(*gitstore.Snapshot) (gitstore.Change, error) {
	return write.SequencesChange(n.seq)
}

func readQuota(sn *gitstore.Snapshot, project string) (*intent.Quota, error) {
	q, err := intent.ReadQuota(sn, intent.QuotaPath(project))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return q, err
}
