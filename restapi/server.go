// Package restapi serves the Magnum container-infra API v1 (port 9511) with
// gin. Every mutation is one Git commit (gitstore), made only after the
// request passed validation and policy; reads come from the SQL read model.
// The wire contract is Magnum's (see docs/api.md for deliberate
// differences), so `openstack coe`, gophercloud, Terraform and the
// cluster-autoscaler work unchanged.
package restapi

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/policy"
	"github.com/openkeel/keel/restapi/write"
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
	// writes is the write path: every mutation is committed through it.
	writes *write.Path
	// afterPrepare, set by tests only, runs between a create's preparation
	// and its commit: where another writer's commit can land.
	afterPrepare func()
	stackIDs     *write.StackIDs
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
	s := &Server{cfg: cfg, engine: e, stackIDs: write.NewStackIDs()}
	s.writes = write.New(write.Config{Store: cfg.Store, DB: cfg.DB, Review: cfg.Review,
		Site: s.siteCatalogue, Check: s.validateDocuments})
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

// requester is who makes a request, as the services past the handlers see
// it: the write path's Caller (what the commit records, the request's id
// and logger) and the credentials OpenStack calls are made with.
type requester struct {
	write.Caller
	creds *auth.Credentials
}

// callerOf is the request's caller: the one thing of gin.Context a
// service gets, with the request's context.
func callerOf(c *gin.Context) requester {
	creds := auth.Of(c)
	return requester{creds: creds, Caller: write.Caller{UserID: creds.UserID, UserName: creds.UserName,
		ProjectID: creds.ProjectID, RequestID: requestIDOf(c), Request: c.Request.Method + " " + c.Request.URL.Path,
		Log: apierr.Log(c)}}
}

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
	c.JSON(http.StatusOK, newRootView(appURL(c)))
	return nil
}

func (s *Server) v1Root(c *gin.Context) error {
	c.JSON(http.StatusOK, newV1View(appURL(c)))
	return nil
}
