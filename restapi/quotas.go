package restapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/body"
	"github.com/openkeel/keel/restapi/write"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
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

func newQuotaView(q *intent.Quota) quotaView {
	return quotaView{ID: q.ID, ProjectID: q.ProjectID, Resource: q.Resource, HardLimit: q.HardLimit,
		CreatedAt: timestamp(&q.CreatedAt), UpdatedAt: timestamp(q.UpdatedAt)}
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
	items := make([]quotaView, 0, len(qs))
	for _, q := range qs {
		items = append(items, newQuotaView(q))
	}
	page, next, perr := paginateBy(c, items, s.cfg.MaxLimit, quotaPager)
	if perr != nil {
		return perr
	}
	c.JSON(http.StatusOK, quotasView{Quotas: page, Next: next})
	return nil
}

// quotaPager pages quotas by their integer id (Magnum's marker for
// quotas). sort_key=uuid orders them by id, as it did when keel gave
// quotas a synthetic uuid to page them.
var quotaPager = pager[quotaView]{
	resource: "quotas",
	marker:   func(q quotaView) string { return strconv.FormatInt(q.ID, 10) },
	parseMarker: func(m string) (string, error) {
		n, err := strconv.ParseInt(m, 10, 64)
		if err != nil || n < 0 {
			return "", body.Invalid("marker", m, "unable to convert to int")
		}
		return strconv.FormatInt(n, 10), nil
	},
	field: func(q quotaView, key string) (any, bool) {
		if key == "uuid" {
			return fmt.Sprintf("00000000-0000-0000-0000-%012d", q.ID), true
		}
		return jsonField(q, key)
	},
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
		c.JSON(http.StatusOK, defaultQuotaView{ProjectID: project, Resource: quotaResource, HardLimit: s.cfg.MaxClustersPerProject})
		return nil
	}
	c.JSON(http.StatusOK, newQuotaView(q))
	return nil
}

func (s *Server) createQuota(c *gin.Context) error {
	b, err := parseQuotaBody(c)
	if err == nil {
		err = s.enforce(c, "quota:create", nil)
	}
	var q *intent.Quota
	if err == nil {
		q, err = newQuota(b)
	}
	if err == nil {
		err = s.createQuotaIn(c.Request.Context(), callerOf(c).Caller, q)
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, newQuotaView(q))
	return nil
}

// parseQuotaBody reads a quota create's or update's body.
func parseQuotaBody(c *gin.Context) (body.Body, error) {
	return parseBody(c, "quota", quotaFields)
}

// newQuota is the quota a create asks for, with Magnum's defaults
// (resource Cluster, hard_limit 1).
func newQuota(b body.Body) (*intent.Quota, error) {
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
		return nil, body.Invalid("project_id", "", "Mandatory field missing.")
	}
	if r := b.Str("resource"); r != nil {
		q.Resource = *r
	}
	if n := b.Integer("hard_limit"); n != nil {
		q.HardLimit = *n
	}
	return q, nil
}

// createQuotaIn commits a project's quota (its id the next in sequence);
// a project has at most one (Magnum's only resource is Cluster).
func (s *Server) createQuotaIn(ctx context.Context, who write.Caller, q *intent.Quota) error {
	return s.writes.Commit(ctx, who, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		if existing, err := readQuota(sn, q.ProjectID); err != nil {
			return nil, err
		} else if existing != nil {
			return nil, apierr.Conflict("Quota for project %s already exists for resource %s.", q.ProjectID, q.Resource)
		}
		seq, err := intent.ReadSequences(sn)
		if err != nil {
			return nil, err
		}
		seq.Quotas++
		q.ID = seq.Quotas
		sc, err := write.SequencesChange(seq)
		if err != nil {
			return nil, err
		}
		data, err := intent.Marshal(q)
		if err != nil {
			return nil, err
		}
		return who.Commit(fmt.Sprintf("quota %s: %s hard_limit %d", q.ProjectID, q.Resource, q.HardLimit), status.OpCreate,
			[]gitstore.Change{{Path: intent.QuotaPath(q.ProjectID), Data: data}, sc}), nil
	})
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
	b, err := parseQuotaBody(c)
	if err == nil {
		err = s.enforce(c, "quota:update", nil)
	}
	project := ""
	if err == nil {
		project, err = projectInPath(c)
	}
	var q *intent.Quota
	if err == nil {
		q, err = s.setQuotaLimit(c.Request.Context(), callerOf(c).Caller, project, c.Param("resource"), b.Integer("hard_limit"))
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, newQuotaView(q))
	return nil
}

// setQuotaLimit changes the hard_limit of a project's quota (nil or the
// same: no commit) and returns the quota.
func (s *Server) setQuotaLimit(ctx context.Context, who write.Caller, project, resource string, n *int64) (*intent.Quota, error) {
	var out *intent.Quota
	err := s.writes.Commit(ctx, who, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		q, err := readQuota(sn, project)
		if err != nil {
			return nil, err
		}
		if q == nil || q.Resource != resource {
			return nil, quotaNotFound(project, resource)
		}
		out = q
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
		return who.Commit(fmt.Sprintf("quota %s: %s hard_limit %d → %d", project, resource, old, *n), status.OpUpdate,
			[]gitstore.Change{{Path: intent.QuotaPath(project), Data: data}}), nil
	})
	return out, err
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
	who := callerOf(c)
	err = s.writes.Commit(c.Request.Context(), who.Caller, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		q, err := readQuota(sn, project)
		if err != nil {
			return nil, err
		}
		if q == nil || q.Resource != resource {
			return nil, quotaNotFound(project, resource)
		}
		return who.Commit(fmt.Sprintf("quota %s: delete", project), status.OpDelete,
			[]gitstore.Change{{Path: intent.QuotaPath(project), Delete: true}}), nil
	})
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
