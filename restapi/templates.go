package restapi

import (
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
	"github.com/openkeel/keel/schemas"
)

var templateFields = []field{
	{name: "uuid", kind: kString},
	{name: "name", kind: kString, minLen: 1, maxLen: 255},
	{name: "coe", kind: kString, mandatory: true, enum: []string{"kubernetes"}},
	{name: "image_id", kind: kString, mandatory: true, minLen: 1, maxLen: 255},
	{name: "flavor_id", kind: kString, minLen: 1, maxLen: 255},
	{name: "master_flavor_id", kind: kString, minLen: 1, maxLen: 255},
	{name: "dns_nameserver", kind: kString},
	{name: "keypair_id", kind: kString},
	{name: "external_network_id", kind: kString},
	{name: "fixed_network", kind: kString},
	{name: "fixed_subnet", kind: kString},
	{name: "network_driver", kind: kString},
	{name: "volume_driver", kind: kString},
	{name: "apiserver_port", kind: kInt, min: i64(1024), max: i64(65535)},
	{name: "docker_volume_size", kind: kInt, min: i64(1)},
	{name: "docker_storage_driver", kind: kString},
	{name: "cluster_distro", kind: kString},
	{name: "http_proxy", kind: kString, minLen: 1, maxLen: 255},
	{name: "https_proxy", kind: kString, minLen: 1, maxLen: 255},
	{name: "no_proxy", kind: kString, minLen: 1, maxLen: 255},
	{name: "insecure_registry", kind: kString, minLen: 1, maxLen: 255},
	{name: "labels", kind: kLabels},
	{name: "registry_enabled", kind: kBool},
	{name: "tls_disabled", kind: kBool},
	{name: "public", kind: kBool},
	{name: "hidden", kind: kBool},
	{name: "master_lb_enabled", kind: kBool},
	{name: "floating_ip_enabled", kind: kBool},
	{name: "server_type", kind: kString, enum: []string{"vm", "bm"}},
	{name: "tags", kind: kString, maxLen: 255},
	{name: "driver", kind: kString, minLen: 1, maxLen: 255},
	{name: "links", kind: kAny, readOnly: true},
	{name: "project_id", kind: kString, readOnly: true},
	{name: "user_id", kind: kString, readOnly: true},
	{name: "created_at", kind: kAny, readOnly: true},
	{name: "updated_at", kind: kAny, readOnly: true},
}

// supportedNetworkDrivers are the CNIs keel's ClusterClass deploys.
var supportedNetworkDrivers = []string{"calico", "cilium"}

func (s *Server) templateRoutes(r *gin.RouterGroup) {
	r.GET("/clustertemplates", s.requirePolicy("clustertemplate:get_all"),
		s.requireAllProjects("clustertemplate:get_all_all_projects"), s.listTemplates(false))
	r.GET("/clustertemplates/detail", s.requirePolicy("clustertemplate:detail"),
		s.requireAllProjects("clustertemplate:detail_all_projects"), s.listTemplates(true))
	r.GET("/clustertemplates/:ident", s.requireAllProjects("clustertemplate:get_one_all_projects"),
		s.templateGetPolicy, s.getTemplate)
	r.POST("/clustertemplates", s.requirePolicy("clustertemplate:create"), s.createTemplate)
}

func templateView(c *gin.Context, t *intent.ClusterTemplate) gin.H {
	labels := t.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	return gin.H{
		"uuid": t.UUID, "name": t.Name, "project_id": t.ProjectID, "user_id": t.UserID,
		"coe": t.COE, "image_id": t.ImageID, "flavor_id": t.FlavorID, "master_flavor_id": t.MasterFlavorID,
		"dns_nameserver": t.DNSNameserver, "keypair_id": t.KeypairID, "external_network_id": t.ExternalNetworkID,
		"fixed_network": t.FixedNetwork, "fixed_subnet": t.FixedSubnet, "network_driver": t.NetworkDriver,
		"volume_driver": t.VolumeDriver, "apiserver_port": t.APIServerPort, "docker_volume_size": t.DockerVolumeSize,
		"docker_storage_driver": t.DockerStorageDriver, "cluster_distro": t.ClusterDistro,
		"http_proxy": t.HTTPProxy, "https_proxy": t.HTTPSProxy, "no_proxy": t.NoProxy,
		"insecure_registry": t.InsecureRegistry, "labels": labels,
		"registry_enabled": t.RegistryEnabled, "tls_disabled": t.TLSDisabled, "public": t.Public,
		"hidden": t.Hidden, "master_lb_enabled": t.MasterLBEnabled, "floating_ip_enabled": t.FloatingIPEnabled,
		"server_type": t.ServerType, "tags": t.Tags, "driver": t.Driver,
		"created_at": timestamp(&t.CreatedAt), "updated_at": timestamp(t.UpdatedAt),
		"links": links(c, "clustertemplates", t.UUID),
	}
}

// timestamp renders ISO-8601 with an offset, as Magnum does (gophercloud
// cannot parse a bare Z-less time).
func timestamp(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return t.UTC().Format("2006-01-02T15:04:05-07:00")
}

// templateScope is what the caller sees (Magnum): its project's templates
// and the public ones not hidden; admins also the public hidden ones, and
// every template once the route switched on all projects (allProjects).
func (s *Server) templateScope(c *gin.Context) readmodel.Scope {
	creds := credsOf(c)
	return readmodel.Scope{ProjectID: creds.ProjectID, All: spansAllProjects(c), PublicHidden: creds.IsAdmin()}
}

func (s *Server) listTemplates(detail bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := checkQuery(c, "limit", "marker", "sort_key", "sort_dir"); err != nil {
			abort(c, err)
			return
		}
		ts, err := s.cfg.DB.ListTemplates(c.Request.Context(), s.templateScope(c), true)
		if err != nil {
			abort(c, err)
			return
		}
		items := make([]gin.H, 0, len(ts))
		for _, t := range ts {
			items = append(items, templateView(c, t))
		}
		page, next, perr := paginate(c, items, s.cfg.MaxLimit, "clustertemplates")
		if perr != nil {
			abort(c, perr)
			return
		}
		out := gin.H{"clustertemplates": page}
		if next != "" {
			out["next"] = next
		}
		c.JSON(http.StatusOK, out)
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
		return nil, notFound("ClusterTemplate %s could not be found.", ident)
	case 1:
		return ts[0], nil
	}
	return nil, conflict("Multiple ClusterTemplates exist with same name. Please use the ClusterTemplate uuid instead.")
}

func (s *Server) getTemplate(c *gin.Context) {
	if err := checkQuery(c); err != nil {
		abort(c, err)
		return
	}
	t, err := s.findTemplate(c, c.Param("ident"), false)
	if err != nil {
		abort(c, err)
		return
	}
	c.JSON(http.StatusOK, templateView(c, t))
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

func (s *Server) createTemplate(c *gin.Context) {
	raw, _ := c.GetRawData()
	b, perr := parseBody(raw, "cluster_template", templateFields)
	if perr != nil {
		abort(c, perr)
		return
	}
	creds := credsOf(c)
	now := time.Now().UTC().Truncate(time.Second)
	t := &intent.ClusterTemplate{
		TypeMeta:          intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
		UUID:              uuid.NewString(),
		ProjectID:         creds.ProjectID,
		UserID:            creds.UserID,
		COE:               *b.str("coe"),
		ImageID:           *b.str("image_id"),
		Labels:            map[string]string{},
		ServerType:        "vm",
		FloatingIPEnabled: true,
		CreatedAt:         now,
	}
	if u := b.str("uuid"); u != nil {
		if !uuidLike.MatchString(*u) {
			abort(c, badRequest("Expected a uuid but received %s.", *u))
			return
		}
		t.UUID = strings.ToLower(*u)
	}
	t.Name = generateName("template")
	if n := b.str("name"); n != nil {
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
		*p = b.str(k)
	}
	t.APIServerPort, t.DockerVolumeSize = b.integer("apiserver_port"), b.integer("docker_volume_size")
	for k, p := range map[string]*bool{
		"registry_enabled": &t.RegistryEnabled, "tls_disabled": &t.TLSDisabled, "public": &t.Public,
		"hidden": &t.Hidden, "master_lb_enabled": &t.MasterLBEnabled, "floating_ip_enabled": &t.FloatingIPEnabled,
	} {
		if v := b.boolean(k); v != nil {
			*p = *v
		}
	}
	if st := b.str("server_type"); st != nil {
		t.ServerType = *st
	}
	if l, ok := b.labels("labels"); ok {
		t.Labels = l
	}
	if err := validateTemplate(t, s.cfg.DefaultNetworkDriver); err != nil {
		abort(c, err)
		return
	}
	if err := s.validateLabels(schemas.ScopeTemplate, t.Labels); err != nil {
		abort(c, err)
		return
	}
	lk := s.newLookups(creds.ProjectID, creds.UserID)
	if err := lk.validateTemplate(c.Request.Context(), t); err != nil {
		abort(c, err)
		return
	}
	if (t.Public || t.Hidden) && !s.policy().Allowed("clustertemplate:publish", creds, nil) {
		abort(c, forbidden("Not authorized to set public or hidden flag for cluster template."))
		return
	}
	// Magnum's root-volume check comes after the publish check.
	if err := lk.checkTemplateRootDisks(c.Request.Context(), t, nil); err != nil {
		abort(c, err)
		return
	}
	err := s.commit(c, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		if existing, err := s.cfg.DB.GetTemplateByUUID(c.Request.Context(), t.UUID); err != nil {
			return nil, err
		} else if existing != nil || sn.Exists(intent.TemplatePath(t.ProjectID, t.UUID)) {
			return nil, conflict("A ClusterTemplate with UUID %s already exists.", t.UUID)
		}
		seq, err := readSequences(sn)
		if err != nil {
			return nil, err
		}
		seq.ClusterTemplates++
		t.ID = seq.ClusterTemplates
		doc, err := intent.Marshal(t)
		if err != nil {
			return nil, err
		}
		sc, err := seq.change()
		if err != nil {
			return nil, err
		}
		return commitFor(c, fmt.Sprintf("clustertemplate %s: create", t.Name), "create",
			[]gitstore.Change{{Path: intent.TemplatePath(t.ProjectID, t.UUID), Data: doc}, sc}), nil
	})
	if err != nil {
		abort(c, err)
		return
	}
	c.Header("Location", appURL(c)+"/v1/clustertemplates/"+t.UUID)
	c.JSON(http.StatusCreated, templateView(c, t))
}

// schemaField refuses a template field value schemas/documents.cue refuses.
func schemaField(name string, value any) error {
	if vs := schemas.Default().ValidateField(schemas.KindClusterTemplate, name, value); len(vs) > 0 {
		return invalid(name, fmt.Sprint(value), strings.ToUpper(vs[0].Message[:1])+vs[0].Message[1:]+".")
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
		return badRequest("Network driver type %s is not supported, expecting a %s network driver.", *t.NetworkDriver, strings.Join(supportedNetworkDrivers, " or "))
	}
	if t.VolumeDriver != nil && *t.VolumeDriver != "cinder" {
		return badRequest("Volume driver type %s is not supported, expecting a cinder volume driver.", *t.VolumeDriver)
	}
	if t.DNSNameserver != nil {
		for _, ip := range strings.Split(*t.DNSNameserver, ",") {
			if net.ParseIP(strings.TrimSpace(ip)) == nil {
				return badRequest("Invalid DNS nameserver %s.", *t.DNSNameserver)
			}
		}
	}
	if t.DockerStorageDriver != nil && *t.DockerStorageDriver == "devicemapper" && (t.DockerVolumeSize == nil || *t.DockerVolumeSize < 3) {
		return badRequest("docker volume size %d GB is not valid, expecting minimum value 3GB for devicemapper storage", intent.Deref(t.DockerVolumeSize))
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
