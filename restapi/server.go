// Package restapi serves the Magnum container-infra API v1 (port 9511) with
// gin. Every mutation is one Git commit (gitstore), made only after the
// request passed validation and policy; reads come from the SQL read model.
// The wire contract is Magnum's (see docs/api.md for deliberate
// differences), so `openstack coe`, gophercloud, Terraform and the
// cluster-autoscaler work unchanged.
package restapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/memo"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/policy"
	"github.com/openkeel/keel/schemas"
)

// Config wires the API to the rest of keel.
type Config struct {
	Store *gitstore.Store
	DB    *readmodel.DB
	Auth  auth.Authenticator
	// AuthURL is announced in WWW-Authenticate on 401s (Keystone mode).
	AuthURL string
	Log     *slog.Logger
	// MaxClustersPerProject is Magnum's [quotas] max_clusters_per_project.
	MaxClustersPerProject int64
	// MaxLimit is Magnum's [api] max_limit for list pagination.
	MaxLimit int
	// ClusterClass is the ClusterClass new clusters run on.
	ClusterClass string
	// DefaultNetworkDriver is used when a template gives none.
	DefaultNetworkDriver string
	// Catalogue, when set, is the label schema requests are validated with
	// (tests); nil is the embedded schema narrowed by the site.cue of the
	// repository's HEAD (see siteCatalogue), as the compiler renders with.
	Catalogue *schemas.Catalogue
	// LabelOptions switch on strict label checking.
	LabelOptions schemas.ValidateOptions
	// Policy authorises requests; nil is Magnum's defaults (see policy.go).
	Policy *policy.Policy
	// Secrets encrypts clusters' key material and decrypts it for the
	// certificate API (keel's age identity; nil: no certificates, and
	// clusters are created without keel-generated CAs).
	Secrets *repo.Secrets
	// SignPolicy is Magnum's [x509] section for CSR signing; nil is
	// Magnum's defaults.
	SignPolicy *pki.SignPolicy
	// Cloud resolves the OpenStack resources a change references (images,
	// flavors, networks, keypairs, volume types); its answers are recorded
	// as the cluster's facts. nil is openstack.Given{}: every reference is
	// taken as given, nothing is looked up.
	Cloud openstack.Cloud
	// Review, when set, sends the changes site.cue's site.review covers to
	// a pull request instead of main (review.Mode); it needs a Git server.
	Review Reviewer
}

// Server is the API.
type Server struct {
	cfg    Config
	engine *gin.Engine
	// afterPrepare, set by tests only, runs between a create's preparation
	// and its commit: where another writer's commit can land.
	afterPrepare func()
	stackIDs     memo.Map[string, map[string]bool] // by clusters folder tree (write.go)
	// prepares bounds the creates preparing at once (prepareSlot).
	prepares chan struct{}
}

// New builds the API handler.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxClustersPerProject == 0 {
		cfg.MaxClustersPerProject = 20
	}
	if cfg.MaxLimit == 0 {
		cfg.MaxLimit = 1000
	}
	if cfg.DefaultNetworkDriver == "" {
		cfg.DefaultNetworkDriver = "calico"
	}
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.RedirectTrailingSlash = false
	e.HandleMethodNotAllowed = true
	s := &Server{cfg: cfg, engine: e, prepares: make(chan struct{}, runtime.GOMAXPROCS(0)), stackIDs: memo.Map[string, map[string]bool]{Max: maxStackIDSets}}
	e.Use(s.requestID(), gin.CustomRecovery(func(c *gin.Context, rec any) {
		apierr.Log(c).Error("panic serving request", "panic", rec)
		apierr.Abort(c, &apierr.Error{Status: http.StatusInternalServerError, Msg: "Internal server error"})
	}), limitBody())
	e.NoRoute(func(c *gin.Context) {
		apierr.Abort(c, &apierr.Error{Status: http.StatusNotFound, Pecan: true, Msg: "The resource could not be found."})
	})
	e.NoMethod(func(c *gin.Context) {
		apierr.Abort(c, &apierr.Error{Status: http.StatusMethodNotAllowed, Pecan: true, Msg: "The server does not allow this method."})
	})
	e.GET("/", handle(s.root))
	v1 := e.Group("/v1", microversion())
	v1.GET("", handle(s.v1Root))
	api := v1.Group("", auth.Middleware(cfg.Auth, cfg.AuthURL))
	s.templateRoutes(api)
	s.clusterRoutes(api)
	s.apiRoutes(api)
	s.certificateRoutes(api)
	return s
}

// ServeHTTP normalises paths as Magnum does, then routes: a trailing slash
// is ignored, and a path whose first segment is not v1 is a v1 path
// (/clusters ≡ /v1/clusters).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
		p = strings.TrimSuffix(p, ".json")
		if p == "" {
			p = "/"
		}
	}
	if p != "/" && p != "/v1" && !strings.HasPrefix(p, "/v1/") {
		p = "/v1" + p
	}
	r.URL.Path = p
	r.URL.RawPath = ""
	s.engine.ServeHTTP(w, r)
}

// requestID gives every response an x-openstack-request-id.
func (s *Server) requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := "req-" + uuid.NewString()
		c.Header("x-openstack-request-id", id)
		apierr.SetLog(c, s.cfg.Log.With("request_id", id))
		c.Set("keel.request_id", id)
		c.Next()
	}
}

func requestIDOf(c *gin.Context) string { return c.GetString("keel.request_id") }

// appURL is the application URL links are built from (scheme, host and any
// proxy prefix).
func appURL(c *gin.Context) string {
	scheme := "http"
	if c.Request.TLS != nil {
		scheme = "https"
	}
	if p := c.GetHeader("X-Forwarded-Proto"); p != "" {
		scheme = p
	}
	host := c.Request.Host
	if h := c.GetHeader("X-Forwarded-Host"); h != "" {
		host = h
	}
	return scheme + "://" + host
}

func links(c *gin.Context, res, id string) []link {
	base := appURL(c)
	return []link{
		{Href: base + "/v1/" + res + "/" + id, Rel: "self"},
		{Href: base + "/" + res + "/" + id, Rel: "bookmark"},
	}
}

func (s *Server) root(c *gin.Context) error {
	c.JSON(http.StatusOK, gin.H{
		"name":        "OpenStack Magnum API",
		"description": "Magnum is an OpenStack project which aims to provide container cluster management.",
		"versions": []gin.H{{
			"id": "v1", "status": "CURRENT", "min_version": "1.1", "max_version": "1.14",
			"links": []gin.H{{"href": appURL(c) + "/v1/", "rel": "self"}},
		}},
	})
	return nil
}

func (s *Server) v1Root(c *gin.Context) error {
	base := appURL(c)
	res := func(name string) []gin.H {
		return []gin.H{{"href": base + "/v1/" + name + "/", "rel": "self"}, {"href": base + "/" + name + "/", "rel": "bookmark"}}
	}
	c.JSON(http.StatusOK, gin.H{
		"id":          "v1",
		"media_types": []gin.H{{"base": "application/json", "type": "application/vnd.openstack.magnum.v1+json"}},
		"links": []gin.H{
			{"href": base + "/v1/", "rel": "self"},
			{"href": "http://docs.openstack.org/developer/magnum/dev/api-spec-v1.html", "rel": "describedby", "type": "text/html"},
		},
		"clustertemplates": res("clustertemplates"),
		"clusters":         res("clusters"),
		"quotas":           res("quotas"),
		"certificates":     res("certificates"),
		"mservices":        res("mservices"),
		"stats":            res("stats"),
		"federations":      res("federations"),
		"credentials":      res("credentials"),
		"nodegroups": []gin.H{
			{"href": base + "/v1/clusters/{cluster_id}/nodegroups", "rel": "self"},
			{"href": base + "/clusters/{cluster_id}/nodegroups", "rel": "bookmark"},
		},
	})
	return nil
}

// commit runs one mutation as one commit, once the documents it writes pass
// the schema (validateDocuments), and brings the read model up to date
// before the response is sent, so a read right after sees it.
func (s *Server) commit(c *gin.Context, fn gitstore.UpdateFunc) error {
	ctx := c.Request.Context()
	// A broken site.cue refuses every write, not only those that validate
	// labels or render: the repository's rules are unknown until it is fixed.
	cat, err := s.siteCatalogue()
	if err != nil {
		return err
	}
	validated := func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		cm, err := fn(sn)
		if err != nil || cm == nil {
			return cm, err
		}
		if err := s.validateDocuments(sn, cm.Changes); err != nil {
			return nil, err
		}
		return cm, nil
	}
	reviewed := ""
	if s.cfg.Review != nil {
		done, object, err := s.cfg.Review.Propose(ctx, requestIDOf(c), methodPath(c), cat, validated)
		if err != nil {
			return siteFileError(err)
		}
		if done {
			return nil // on a review branch: main, and so the read model, unchanged
		}
		reviewed = object
	}
	if _, err := s.cfg.Store.Update(ctx, validated); err != nil {
		if errors.Is(err, gitstore.ErrRemoteUnavailable) {
			// Nothing was acknowledged: the client may retry as is.
			apierr.Log(c).Error("the Git remote did not take the commit", "err", err)
			return apierr.Errorf(http.StatusServiceUnavailable, "The cluster repository's Git server is unavailable. The change was not made; please retry later.")
		}
		// WriteCluster compiles with the site file of the tree it commits
		// onto, which may be broken even when HEAD's was not.
		return siteFileError(err)
	}
	if reviewed != "" {
		s.cfg.Review.Committed(reviewed)
	}
	// The commit is made: projecting it must not fail the request. Reading
	// the branch while another process (a git push) rewrites it can fail
	// transiently, and the projection is idempotent, so retry.
	for attempt := 0; attempt < 20; attempt++ {
		if err = s.cfg.DB.Sync(context.WithoutCancel(ctx), s.cfg.Store); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	return err
}

// prepareOnHead is the one way a write prepares before taking the
// repository's lock: fn runs on HEAD as it is, so that the slow part of
// the write (OpenStack lookups, keys, compiling, writing blobs), which
// depends on nothing other writers commit meanwhile, is done outside the
// lock; the commit then finds it cached or returned, and redoes under the
// lock only what changed since. fn's errors are not reported here: the
// commit recomputes everything and reports them.
func (s *Server) prepareOnHead(fn func(sn *gitstore.Snapshot) error) {
	if sn, err := s.cfg.Store.SnapshotHead(); err == nil {
		_ = fn(sn)
	}
}

// prepareSlot waits for one of GOMAXPROCS slots to do the CPU part of a
// write's preparation before the repository's lock (false: the request
// ended first); its OpenStack lookups wait outside. That part is CPU work;
// fifty of them at once only slow each other, and they slow
// the writer holding the lock as much, since Go schedules goroutines
// without priorities: that writer got a fiftieth of the CPU, and every
// create waited for it (BenchmarkClusterCreate, clients=50).
func (s *Server) prepareSlot(c *gin.Context) (release func(), ok bool) {
	select {
	case s.prepares <- struct{}{}:
		return func() { <-s.prepares }, true
	case <-c.Request.Context().Done():
		return nil, false
	}
}
