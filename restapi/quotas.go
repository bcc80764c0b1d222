package restapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/body"
	"github.com/openkeel/keel/schemas"
)

// Quotas are stored one file per project (quotas/<project>.yaml): Magnum's
// only quota resource is Cluster, so a project has at most one row. The
// cluster create (clusters.go, newClusterState) reads the same file in the
// snapshot it commits to, so the limit and the create are atomic.

const quotaResource = "Cluster"

var quotaFields = []body.Field{
	{Name: "project_id", Kind: body.String, MinLen: 1, MaxLen: 64, Pattern: intent.ProjectIDPattern, Rule: intent.ProjectIDRule},
	{Name: "resource", Kind: body.String, Enum: []string{quotaResource}},
	{Name: "hard_limit", Kind: body.Int, Min: body.I64(0)},
	{Name: "id", Kind: body.Any, ReadOnly: true},
	{Name: "created_at", Kind: body.Any, ReadOnly: true},
	{Name: "updated_at", Kind: body.Any, ReadOnly: true},
}

func quotaView(q *intent.Quota) gin.H {
	return gin.H{
		"id": q.ID, "project_id": q.ProjectID, "resource": q.Resource, "hard_limit": q.HardLimit,
		"created_at": timestamp(&q.CreatedAt), "updated_at": timestamp(q.UpdatedAt),
	}
}

func (s *Server) listQuotas(c *gin.Context) error {
	if err := checkQuery(c, "limit", "marker", "sort_key", "sort_dir", "all_tenants"); err != nil {
		return err
	}
	if err := s.enforce(c, "quota:get_all", nil); err != nil {
		return err
	}
	creds := auth.Of(c)
	all := false
	if v := c.Query("all_tenants"); v != "" {
		b, err := schemas.ParseBool(v)
		if err != nil {
			return body.Invalid("all_tenants", v, "Wrong type. Expected a boolean")
		}
		all = b && creds.IsAdmin()
	}
	qs, err := s.cfg.DB.ListQuotas(c.Request.Context(), readmodel.Scope{ProjectID: creds.ProjectID, All: all})
	if err != nil {
		return err
	}
	items := make([]gin.H, 0, len(qs))
	for _, q := range qs {
		items = append(items, quotaView(q))
	}
	page, next, perr := paginateByID(c, items, s.cfg.MaxLimit, "quotas")
	if perr != nil {
		return perr
	}
	out := gin.H{"quotas": page}
	if next != "" {
		out["next"] = next
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// paginateByID is paginate for quotas, whose marker is the integer id:
// the items get their id as a synthetic UUID so that paginate's sort,
// limit and next rules apply unchanged, and the marker is mapped both ways.
func paginateByID(c *gin.Context, items []gin.H, maxLimit int, resource string) ([]gin.H, string, error) {
	synth := func(id any) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", id) }
	q := c.Request.URL.Query()
	marker := q.Get("marker")
	if marker != "" {
		n, err := strconv.ParseInt(marker, 10, 64)
		if err != nil || n < 0 {
			return nil, "", body.Invalid("marker", marker, "unable to convert to int")
		}
		orig := c.Request.URL.RawQuery
		q.Set("marker", synth(n))
		c.Request.URL.RawQuery = q.Encode()
		defer func() { c.Request.URL.RawQuery = orig }()
	}
	withIDs := make([]gin.H, len(items))
	for i, it := range items {
		h := gin.H{}
		for k, v := range it {
			h[k] = v
		}
		h["uuid"] = synth(it["id"])
		withIDs[i] = h
	}
	page, next, err := paginate(c, withIDs, maxLimit, resource)
	if err != nil {
		if e, ok := apierr.As(err); ok && e.Status == http.StatusNotFound {
			return nil, "", apierr.NotFound("Marker %s could not be found.", marker)
		}
		return nil, "", err
	}
	for i := range page {
		delete(page[i], "uuid")
	}
	if next != "" {
		if u, perr := url.Parse(next); perr == nil {
			nq := u.Query()
			nq.Set("marker", fmt.Sprint(page[len(page)-1]["id"]))
			u.RawQuery = nq.Encode()
			next = u.String()
		}
	}
	return page, next, nil
}

func (s *Server) getQuota(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	if err := s.enforce(c, "quota:get", nil); err != nil {
		return err
	}
	creds := auth.Of(c)
	project, err := projectInPath(c)
	if err != nil {
		return err
	}
	if !creds.IsAdmin() && project != creds.ProjectID {
		return notAuthorized()
	}
	q, err := s.cfg.DB.GetQuota(c.Request.Context(), project)
	if err != nil {
		return err
	}
	if q == nil || c.Param("resource") != q.Resource {
		// No explicit quota: Magnum shows the configured default.
		c.JSON(http.StatusOK, gin.H{"project_id": project, "resource": quotaResource, "hard_limit": s.cfg.MaxClustersPerProject})
		return nil
	}
	c.JSON(http.StatusOK, quotaView(q))
	return nil
}

func (s *Server) createQuota(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "quota", quotaFields)
	if perr != nil {
		return perr
	}
	if err := s.enforce(c, "quota:create", nil); err != nil {
		return err
	}
	q := &intent.Quota{
		TypeMeta:  intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindQuota},
		Resource:  quotaResource,
		HardLimit: 1, // Magnum's default
		CreatedAt: now(),
	}
	if p := b.Str("project_id"); p != nil {
		q.ProjectID = *p
	}
	if q.ProjectID == "" {
		return body.Invalid("project_id", "", "Mandatory field missing.")
	}
	if r := b.Str("resource"); r != nil {
		q.Resource = *r
	}
	if n := b.Integer("hard_limit"); n != nil {
		q.HardLimit = *n
	}
	err := s.commit(c, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		if existing, err := readQuota(sn, q.ProjectID); err != nil {
			return nil, err
		} else if existing != nil {
			return nil, apierr.Conflict("Quota for project %s already exists for resource %s.", q.ProjectID, q.Resource)
		}
		seq, err := readSequences(sn)
		if err != nil {
			return nil, err
		}
		seq.Quotas++
		q.ID = seq.Quotas
		sc, err := seq.change()
		if err != nil {
			return nil, err
		}
		data, err := intent.Marshal(q)
		if err != nil {
			return nil, err
		}
		return commitFor(c, fmt.Sprintf("quota %s: %s hard_limit %d", q.ProjectID, q.Resource, q.HardLimit), "create",
			[]gitstore.Change{{Path: intent.QuotaPath(q.ProjectID), Data: data}, sc}), nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, quotaView(q))
	return nil
}

// projectInPath is the project id of a quota route's path, refused with a
// 400 naming project_id unless it is one keel can store: no quota exists
// for any other, and the id would otherwise reach a repository path.
func projectInPath(c *gin.Context) (string, error) {
	p := c.Param("project")
	if !intent.ValidProjectID(p) {
		return "", body.Invalid("project_id", p, intent.ProjectIDRule)
	}
	return p, nil
}

// quotaNotFound is Magnum's 404 for a quota row that does not exist.
func quotaNotFound(project, resource string) *apierr.Error {
	return apierr.NotFound("Quota could not be found: project_id %s resource %s.", project, resource)
}

// updateQuota is PATCH /v1/quotas/{project}/{resource} with a plain object.
// keel keeps the stored hard_limit when the body omits it; Magnum resets it
// to 1, which silently shrinks a project's quota.
func (s *Server) updateQuota(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "quota", quotaFields)
	if perr != nil {
		return perr
	}
	if err := s.enforce(c, "quota:update", nil); err != nil {
		return err
	}
	project, err := projectInPath(c)
	if err != nil {
		return err
	}
	resource := c.Param("resource")
	var out *intent.Quota
	err = s.commit(c, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		q, err := readQuota(sn, project)
		if err != nil {
			return nil, err
		}
		if q == nil || q.Resource != resource {
			return nil, quotaNotFound(project, resource)
		}
		out = q
		n := b.Integer("hard_limit")
		if n == nil || *n == q.HardLimit {
			return nil, nil
		}
		old := q.HardLimit
		q.HardLimit = *n
		q.UpdatedAt = intent.Ptr(now())
		data, err := intent.Marshal(q)
		if err != nil {
			return nil, err
		}
		return commitFor(c, fmt.Sprintf("quota %s: %s hard_limit %d → %d", project, resource, old, *n), "update",
			[]gitstore.Change{{Path: intent.QuotaPath(project), Data: data}}), nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, quotaView(out))
	return nil
}

func (s *Server) deleteQuota(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	if err := s.enforce(c, "quota:delete", nil); err != nil {
		return err
	}
	project, err := projectInPath(c)
	if err != nil {
		return err
	}
	resource := c.Param("resource")
	err = s.commit(c, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		q, err := readQuota(sn, project)
		if err != nil {
			return nil, err
		}
		if q == nil || q.Resource != resource {
			return nil, quotaNotFound(project, resource)
		}
		return commitFor(c, fmt.Sprintf("quota %s: delete", project), "delete",
			[]gitstore.Change{{Path: intent.QuotaPath(project), Delete: true}}), nil
	})
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
