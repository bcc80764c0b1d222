package restapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

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

var templateFields = []body.Field{
	{Name: "uuid", Kind: body.String},
	{Name: "name", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "coe", Kind: body.String, Mandatory: true, Enum: []string{"kubernetes"}},
	{Name: "image_id", Kind: body.String, Mandatory: true, MinLen: 1, MaxLen: 255},
	{Name: "flavor_id", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "master_flavor_id", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "dns_nameserver", Kind: body.String},
	{Name: "keypair_id", Kind: body.String},
	{Name: "external_network_id", Kind: body.String},
	{Name: "fixed_network", Kind: body.String},
	{Name: "fixed_subnet", Kind: body.String},
	{Name: "network_driver", Kind: body.String},
	{Name: "volume_driver", Kind: body.String},
	{Name: "apiserver_port", Kind: body.Int, Min: body.I64(1024), Max: body.I64(65535)},
	{Name: "docker_volume_size", Kind: body.Int, Min: body.I64(1)},
	{Name: "docker_storage_driver", Kind: body.String},
	{Name: "cluster_distro", Kind: body.String},
	{Name: "http_proxy", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "https_proxy", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "no_proxy", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "insecure_registry", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "labels", Kind: body.Labels},
	{Name: "registry_enabled", Kind: body.Bool},
	{Name: "tls_disabled", Kind: body.Bool},
	{Name: "public", Kind: body.Bool},
	{Name: "hidden", Kind: body.Bool},
	{Name: "master_lb_enabled", Kind: body.Bool},
	{Name: "floating_ip_enabled", Kind: body.Bool},
	{Name: "server_type", Kind: body.String, Enum: []string{"vm", "bm"}},
	{Name: "tags", Kind: body.String, MaxLen: 255},
	{Name: "driver", Kind: body.String, MinLen: 1, MaxLen: 255},
	{Name: "links", Kind: body.Any, ReadOnly: true},
	{Name: "project_id", Kind: body.String, ReadOnly: true},
	{Name: "user_id", Kind: body.String, ReadOnly: true},
	{Name: "created_at", Kind: body.Any, ReadOnly: true},
	{Name: "updated_at", Kind: body.Any, ReadOnly: true},
}

// supportedNetworkDrivers are the CNIs keel's ClusterClass deploys.
var supportedNetworkDrivers = []string{"calico", "cilium"}

func (s *Server) templateRoutes(r *gin.RouterGroup) {
	r.GET("/clustertemplates", s.requirePolicy("clustertemplate:get_all"),
		s.requireAllProjects("clustertemplate:get_all_all_projects"), handle(s.listTemplates(false)))
	r.GET("/clustertemplates/detail", s.requirePolicy("clustertemplate:detail"),
		s.requireAllProjects("clustertemplate:detail_all_projects"), handle(s.listTemplates(true)))
	r.GET("/clustertemplates/:ident", s.requireAllProjects("clustertemplate:get_one_all_projects"),
		guard(s.templateGetPolicy), handle(s.getTemplate))
	r.POST("/clustertemplates", s.requirePolicy("clustertemplate:create"), handle(s.createTemplate))
}

// timestamp renders ISO-8601 with an offset, as Magnum does (gophercloud
// cannot parse a bare Z-less time).
func timestamp(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	// As Magnum's API (Python's isoformat): microseconds only when there
	// are some, as in a row imported from a database that keeps them
	// (PostgreSQL; MariaDB's DATETIME drops them). keel's own times are
	// whole seconds.
	u, layout := t.UTC().Truncate(time.Microsecond), "2006-01-02T15:04:05-07:00"
	if u.Nanosecond() != 0 {
		layout = "2006-01-02T15:04:05.000000-07:00"
	}
	s := u.Format(layout)
	return &s
}

// templateScope is what the caller sees (Magnum): its project's templates
// and the public ones not hidden; admins also the public hidden ones, and
// every template once the route switched on all projects (allProjects).
func (s *Server) templateScope(c *gin.Context) readmodel.Scope {
	creds := auth.Of(c)
	return readmodel.Scope{ProjectID: creds.ProjectID, All: spansAllProjects(c), PublicHidden: creds.IsAdmin()}
}

func (s *Server) listTemplates(detail bool) handler {
	return func(c *gin.Context) error {
		if err := checkQuery(c, "limit", "marker", "sort_key", "sort_dir"); err != nil {
			return err
		}
		ts, err := s.cfg.DB.ListTemplates(c.Request.Context(), s.templateScope(c), true)
		if err != nil {
			return err
		}
		items := make([]templateView, 0, len(ts))
		for _, t := range ts {
			items = append(items, newTemplateView(c, t))
		}
		page, next, perr := paginate(c, items, s.cfg.MaxLimit, "clustertemplates")
		if perr != nil {
			return perr
		}
		c.JSON(http.StatusOK, templatesView{ClusterTemplates: page, Next: next})
		return nil
	}
}

// findTemplate resolves a template ident (UUID or name; an int-like ident
// is the internal id when allowID) among the templates the caller sees.
func (s *Server) findTemplate(c *gin.Context, ident string, allowID bool) (*intent.ClusterTemplate, error) {
	ts, err := s.cfg.DB.FindTemplates(c.Request.Context(), s.templateScope(c), true, ident)
	if err != nil {
		return nil, err
	}
	if allowID && isIntLike(ident) && len(ts) == 0 {
		all, err := s.cfg.DB.ListTemplates(c.Request.Context(), s.templateScope(c), true)
		if err != nil {
			return nil, err
		}
		for _, t := range all {
			if fmt.Sprint(t.ID) == ident {
				ts = append(ts, t)
			}
		}
	}
	switch len(ts) {
	case 0:
		return nil, apierr.NotFound("ClusterTemplate %s could not be found.", ident)
	case 1:
		return ts[0], nil
	}
	return nil, apierr.Conflict("Multiple ClusterTemplates exist with same name. Please use the ClusterTemplate uuid instead.")
}

func (s *Server) getTemplate(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	t, err := s.findTemplate(c, c.Param("ident"), false)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, newTemplateView(c, t))
	return nil
}

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

func isIntLike(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (s *Server) createTemplate(c *gin.Context) error {
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "cluster_template", templateFields)
	if perr != nil {
		return perr
	}
	ctx, who := c.Request.Context(), callerOf(c)
	t, err := newTemplateIntent(b, who.creds)
	if err == nil {
		err = s.checkNewTemplate(ctx, who, t)
	}
	if err == nil {
		err = s.createTemplateIn(ctx, who.Caller, t)
	}
	if err != nil {
		return err
	}
	c.Header("Location", appURL(c)+"/v1/clustertemplates/"+t.UUID)
	c.JSON(http.StatusCreated, newTemplateView(c, t))
	return nil
}

// checkNewTemplate runs a template create's checks in Magnum's order: the
// fields, the labels, the OpenStack references (as the caller), the
// publish rule, then the root-volume check.
func (s *Server) checkNewTemplate(ctx context.Context, who requester, t *intent.ClusterTemplate) error {
	if err := validateTemplate(t, s.cfg.DefaultNetworkDriver); err != nil {
		return err
	}
	if err := s.validateLabels(schemas.ScopeTemplate, t.Labels); err != nil {
		return err
	}
	lk := s.newResolver(who.ProjectID, who.UserID)
	if err := lk.validateTemplate(ctx, t); err != nil {
		return err
	}
	if (t.Public || t.Hidden) && !s.policy().Allowed("clustertemplate:publish", who.creds, nil) {
		return apierr.Forbidden("Not authorized to set public or hidden flag for cluster template.")
	}
	return lk.checkTemplateRootDisks(ctx, t, nil)
}

// createTemplateIn commits a new template (its id the next in sequence);
// a uuid already taken is a 409.
func (s *Server) createTemplateIn(ctx context.Context, who write.Caller, t *intent.ClusterTemplate) error {
	return s.writes.Commit(ctx, who, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		if existing, err := s.cfg.DB.GetTemplateByUUID(ctx, t.UUID); err != nil {
			return nil, err
		} else if existing != nil || sn.Exists(intent.TemplatePath(t.ProjectID, t.UUID)) {
			return nil, apierr.Conflict("A ClusterTemplate with UUID %s already exists.", t.UUID)
		}
		seq, err := intent.ReadSequences(sn)
		if err != nil {
			return nil, err
		}
		seq.ClusterTemplates++
		t.ID = seq.ClusterTemplates
		doc, err := intent.Marshal(t)
		if err != nil {
			return nil, err
		}
		sc, err := write.SequencesChange(seq)
		if err != nil {
			return nil, err
		}
		return who.Commit(fmt.Sprintf("clustertemplate %s: create", t.Name), status.OpCreate,
			[]gitstore.Change{{Path: intent.TemplatePath(t.ProjectID, t.UUID), Data: doc}, sc}), nil
	})
}

// newTemplateIntent is the template a create asks for: Magnum's defaults,
// overridden by the request's fields, owned by the caller.
func newTemplateIntent(b body.Body, creds *auth.Credentials) (*intent.ClusterTemplate, error) {
	now := time.Now().UTC().Truncate(time.Second)
	t := &intent.ClusterTemplate{
		TypeMeta:          intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
		UUID:              uuid.NewString(),
		ProjectID:         creds.ProjectID,
		UserID:            creds.UserID,
		COE:               *b.Str("coe"),
		ImageID:           *b.Str("image_id"),
		Labels:            map[string]string{},
		ServerType:        "vm",
		FloatingIPEnabled: true,
		CreatedAt:         now,
	}
	if u := b.Str("uuid"); u != nil {
		if !uuidLike.MatchString(*u) {
			return nil, apierr.BadRequest("Expected a uuid but received %s.", *u)
		}
		t.UUID = strings.ToLower(*u)
	}
	t.Name = generateName("template")
	if n := b.Str("name"); n != nil {
		t.Name = *n
	}
	for k, p := range map[string]**string{
		"flavor_id": &t.FlavorID, "master_flavor_id": &t.MasterFlavorID, "dns_nameserver": &t.DNSNameserver,
		"keypair_id": &t.KeypairID, "external_network_id": &t.ExternalNetworkID, "fixed_network": &t.FixedNetwork,
		"fixed_subnet": &t.FixedSubnet, "network_driver": &t.NetworkDriver, "volume_driver": &t.VolumeDriver,
		"docker_storage_driver": &t.DockerStorageDriver, "cluster_distro": &t.ClusterDistro,
		"http_proxy": &t.HTTPProxy, "https_proxy": &t.HTTPSProxy, "no_proxy": &t.NoProxy,
		"insecure_registry": &t.InsecureRegistry, "tags": &t.Tags, "driver": &t.Driver,
	} {
		*p = b.Str(k)
	}
	t.APIServerPort, t.DockerVolumeSize = b.Integer("apiserver_port"), b.Integer("docker_volume_size")
	for k, p := range map[string]*bool{
		"registry_enabled": &t.RegistryEnabled, "tls_disabled": &t.TLSDisabled, "public": &t.Public,
		"hidden": &t.Hidden, "master_lb_enabled": &t.MasterLBEnabled, "floating_ip_enabled": &t.FloatingIPEnabled,
	} {
		if v := b.Boolean(k); v != nil {
			*p = *v
		}
	}
	if st := b.Str("server_type"); st != nil {
		t.ServerType = *st
	}
	if l, ok := b.Labels("labels"); ok {
		t.Labels = l
	}
	return t, nil
}

// schemaField refuses a template field value schemas/documents.cue refuses.
func schemaField(name string, value any) error {
	if vs := schemas.Default().ValidateField(intent.KindClusterTemplate, name, value); len(vs) > 0 {
		return body.Invalid(name, fmt.Sprint(value), strings.ToUpper(vs[0].Message[:1])+vs[0].Message[1:]+".")
	}
	return nil
}

// validateTemplate applies Magnum's create-time checks that need no
// OpenStack lookup.
func validateTemplate(t *intent.ClusterTemplate, defaultDriver string) error {
	if t.NetworkDriver == nil {
		d := defaultDriver
		t.NetworkDriver = &d
	}
	if !slices.Contains(supportedNetworkDrivers, *t.NetworkDriver) {
		return apierr.BadRequest("Network driver type %s is not supported, expecting a %s network driver.", *t.NetworkDriver, strings.Join(supportedNetworkDrivers, " or "))
	}
	if t.VolumeDriver != nil && *t.VolumeDriver != "cinder" {
		return apierr.BadRequest("Volume driver type %s is not supported, expecting a cinder volume driver.", *t.VolumeDriver)
	}
	if t.DNSNameserver != nil {
		for _, ip := range strings.Split(*t.DNSNameserver, ",") {
			if net.ParseIP(strings.TrimSpace(ip)) == nil {
				return apierr.BadRequest("Invalid DNS nameserver %s.", *t.DNSNameserver)
			}
		}
	}
	if t.DockerStorageDriver != nil && *t.DockerStorageDriver == "devicemapper" && (t.DockerVolumeSize == nil || *t.DockerVolumeSize < 3) {
		return apierr.BadRequest("docker volume size %d GB is not valid, expecting minimum value 3GB for devicemapper storage", intent.Deref(t.DockerVolumeSize))
	}
	// keel wires both into Cluster API (Magnum stores them unchecked and
	// the reference driver ignores them): the schema's rules, so that the
	// API refuses what `keel vet` refuses.
	if t.APIServerPort != nil {
		if err := schemaField("apiserver_port", *t.APIServerPort); err != nil {
			return err
		}
	}
	if t.InsecureRegistry != nil {
		if err := schemaField("insecure_registry", *t.InsecureRegistry); err != nil {
			return err
		}
	}
	return nil
}
