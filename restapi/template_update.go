package restapi

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/body"
	"github.com/openkeel/keel/restapi/jsonpatch"
	"github.com/openkeel/keel/restapi/policy"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// templatePatchRules are Magnum's ClusterTemplatePatchType rules.
var templatePatchRules = jsonpatch.Rules{
	Mandatory: []string{"/coe", "/image_id", "/network_driver", "/external_network_id", "/tls_disabled", "/public",
		"/server_type", "/registry_enabled", "/cluster_distro", "/hidden"},
	Literal: []string{"/labels"},
}

// templatePatchSpecs re-validate patched attributes with the POST rules.
var templatePatchSpecs = func() map[string]body.Field {
	m := map[string]body.Field{}
	for _, f := range templateFields {
		if !f.ReadOnly && f.Name != "uuid" {
			f.Mandatory = false
			m[f.Name] = f
		}
	}
	return m
}()

func templateTarget(t *intent.ClusterTemplate) policy.Target {
	return policy.Target{"project_id": t.ProjectID, "user_id": t.UserID}
}

// lookupTemplateForWrite resolves a template for PATCH and DELETE: admins
// span every project (the *_all_projects rule), others see their own and
// the public ones, then the write rule is checked against the template's
// project (a public template of another project is a 403, not a 404).
func (s *Server) lookupTemplateForWrite(c *gin.Context, allRule, rule string) (*intent.ClusterTemplate, error) {
	if _, err := s.allProjects(c, allRule); err != nil {
		return nil, err
	}
	t, err := s.findTemplate(c, c.Param("ident"), false)
	if err != nil {
		return nil, err
	}
	if err := s.enforce(c, rule, templateTarget(t)); err != nil {
		return nil, err
	}
	return t, nil
}

// templateReferenced reports whether a cluster in Git runs on the template.
// It reads the snapshot being committed, so the check and the write are
// atomic: a cluster created concurrently on the template makes the commit
// retry and then fail.
func templateReferenced(sn *gitstore.Snapshot, uuid string) (bool, error) {
	dirs, err := intent.ClusterDirs(sn)
	if err != nil {
		return false, err
	}
	for _, dir := range dirs {
		cl, err := intent.ReadClusterDocument(sn, dir)
		if err != nil {
			return false, err
		}
		if cl.ClusterTemplateID == uuid {
			return true, nil
		}
	}
	return false, nil
}

func readTemplate(sn *gitstore.Snapshot, t *intent.ClusterTemplate) (*intent.ClusterTemplate, string, error) {
	fp := intent.TemplatePath(t.ProjectID, t.UUID)
	cur, err := intent.ReadTemplate(sn, fp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fp, apierr.NotFound("ClusterTemplate %s could not be found.", t.UUID)
	}
	return cur, fp, err
}

// templateDoc is Magnum's ClusterTemplate.as_dict(): every attribute, null
// when unset, so that `add` can fill a null one.
func templateDoc(t *intent.ClusterTemplate) (map[string]any, error) {
	return jsonpatch.ToDoc(map[string]any{
		"id": t.ID, "uuid": t.UUID, "name": t.Name, "project_id": t.ProjectID, "user_id": t.UserID,
		"coe": t.COE, "image_id": t.ImageID, "flavor_id": t.FlavorID, "master_flavor_id": t.MasterFlavorID,
		"dns_nameserver": t.DNSNameserver, "keypair_id": t.KeypairID, "external_network_id": t.ExternalNetworkID,
		"fixed_network": t.FixedNetwork, "fixed_subnet": t.FixedSubnet, "network_driver": t.NetworkDriver,
		"volume_driver": t.VolumeDriver, "apiserver_port": t.APIServerPort, "docker_volume_size": t.DockerVolumeSize,
		"docker_storage_driver": t.DockerStorageDriver, "cluster_distro": t.ClusterDistro,
		"http_proxy": t.HTTPProxy, "https_proxy": t.HTTPSProxy, "no_proxy": t.NoProxy,
		"insecure_registry": t.InsecureRegistry, "labels": t.Labels,
		"registry_enabled": t.RegistryEnabled, "tls_disabled": t.TLSDisabled, "public": t.Public,
		"hidden": t.Hidden, "master_lb_enabled": t.MasterLBEnabled, "floating_ip_enabled": t.FloatingIPEnabled,
		"server_type": t.ServerType, "tags": t.Tags, "driver": t.Driver,
		"created_at": timestamp(&t.CreatedAt), "updated_at": timestamp(t.UpdatedAt),
	})
}

// setTemplateField stores a validated attribute value (nil = null) in t.
func setTemplateField(t *intent.ClusterTemplate, name string, v any) error {
	str := func() *string {
		if v == nil {
			return nil
		}
		return intent.Ptr(v.(string))
	}
	num := func() *int64 {
		if v == nil {
			return nil
		}
		return intent.Ptr(v.(int64))
	}
	boolean := func(def bool) bool {
		if v == nil {
			return def // Magnum shows a null flag as its default
		}
		return v.(bool)
	}
	strp := map[string]**string{
		"flavor_id": &t.FlavorID, "master_flavor_id": &t.MasterFlavorID, "dns_nameserver": &t.DNSNameserver,
		"keypair_id": &t.KeypairID, "external_network_id": &t.ExternalNetworkID, "fixed_network": &t.FixedNetwork,
		"fixed_subnet": &t.FixedSubnet, "network_driver": &t.NetworkDriver, "volume_driver": &t.VolumeDriver,
		"docker_storage_driver": &t.DockerStorageDriver, "cluster_distro": &t.ClusterDistro,
		"http_proxy": &t.HTTPProxy, "https_proxy": &t.HTTPSProxy, "no_proxy": &t.NoProxy,
		"insecure_registry": &t.InsecureRegistry, "tags": &t.Tags, "driver": &t.Driver,
	}
	if p, ok := strp[name]; ok {
		*p = str()
		return nil
	}
	switch name {
	case "name", "coe", "image_id", "server_type":
		if v == nil {
			if name == "server_type" {
				t.ServerType = "vm"
				return nil
			}
			return body.Invalid(name, "None", "Mandatory field missing.")
		}
		switch name {
		case "name":
			t.Name = v.(string)
		case "coe":
			t.COE = v.(string)
		case "image_id":
			t.ImageID = v.(string)
		case "server_type":
			t.ServerType = v.(string)
		}
	case "apiserver_port":
		t.APIServerPort = num()
	case "docker_volume_size":
		t.DockerVolumeSize = num()
	case "labels":
		m, _ := v.(map[string]string)
		t.Labels = m
	case "registry_enabled":
		t.RegistryEnabled = boolean(false)
	case "tls_disabled":
		t.TLSDisabled = boolean(false)
	case "public":
		t.Public = boolean(false)
	case "hidden":
		t.Hidden = boolean(false)
	case "master_lb_enabled":
		t.MasterLBEnabled = boolean(false)
	case "floating_ip_enabled":
		t.FloatingIPEnabled = boolean(true)
	default:
		return apierr.BadRequest("cannot change cluster template property %s.", name)
	}
	return nil
}

// referencedChangeAllowed is Magnum's rule for a template in use: only
// publishing (public → true), hiding or unhiding, tagging or renaming, one
// at a time.
func referencedChangeAllowed(changed []string, t *intent.ClusterTemplate) bool {
	if len(changed) != 1 {
		return false
	}
	switch changed[0] {
	case "public":
		return t.Public
	case "hidden", "name":
		return true
	case "tags":
		return t.Tags != nil
	}
	return false
}

// updateTemplate is PATCH /v1/clustertemplates/{ident} → 200 with the full
// template.
func (s *Server) updateTemplate(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	raw, _ := c.GetRawData()
	ops, perr := jsonpatch.Parse(raw, templatePatchRules)
	if perr != nil {
		return perr
	}
	found, err := s.lookupTemplateForWrite(c, "clustertemplate:update_all_projects", "clustertemplate:update")
	if err != nil {
		return err
	}
	var result *intent.ClusterTemplate
	creds := auth.Of(c)
	lk := s.newLookups(creds.ProjectID, creds.UserID)
	update := func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		cur, fp, err := readTemplate(sn, found)
		if err != nil {
			return nil, err
		}
		next, changed, err := patchTemplate(cur, ops)
		if err != nil {
			return nil, err
		}
		result = &next
		if len(changed) == 0 {
			return nil, nil
		}
		if err := s.checkTemplateChange(c, lk, sn, cur, &next, changed); err != nil {
			return nil, err
		}
		next.UpdatedAt = intent.Ptr(now())
		data, err := intent.Marshal(&next)
		if err != nil {
			return nil, err
		}
		sort.Strings(changed)
		return commitFor(c, fmt.Sprintf("clustertemplate %s: update %s", cur.Name, strings.Join(changed, ", ")), status.OpUpdate,
			[]gitstore.Change{{Path: fp, Data: data}}), nil
	}
	// A dry run on HEAD makes the OpenStack lookups outside the repository's
	// write lock; the commit (which may run again) finds them cached.
	s.prepareOnHead(func(sn *gitstore.Snapshot) error {
		_, err := update(sn)
		return err
	})
	err = s.commit(c, update)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, newTemplateView(c, result))
	return nil
}

// patchTemplate applies a JSON patch to a template: the patched template
// and the fields the patch really changes (a null flag reads back as its
// default and is no change).
func patchTemplate(cur *intent.ClusterTemplate, ops []jsonpatch.Op) (intent.ClusterTemplate, []string, error) {
	doc, err := templateDoc(cur)
	if err != nil {
		return intent.ClusterTemplate{}, nil, err
	}
	patched, perr := jsonpatch.Apply(doc, ops, templatePatchRules)
	if perr != nil {
		return intent.ClusterTemplate{}, nil, perr
	}
	for k := range patched {
		if _, ok := doc[k]; !ok {
			return intent.ClusterTemplate{}, nil, jsonpatch.CannotApply(ops, fmt.Sprintf("unknown attribute %s", k))
		}
	}
	changed, err := changedFields(doc, patched, templatePatchSpecs)
	if err != nil {
		return intent.ClusterTemplate{}, nil, err
	}
	next := *cur
	for _, k := range changed {
		f, ok := templatePatchSpecs[k]
		if !ok {
			return intent.ClusterTemplate{}, nil, apierr.BadRequest("cannot change cluster template property %s.", k)
		}
		v, perr := jsonpatch.DecodePatched(f, patched[k])
		if perr != nil {
			return intent.ClusterTemplate{}, nil, perr
		}
		if err := setTemplateField(&next, k, v); err != nil {
			return intent.ClusterTemplate{}, nil, err
		}
	}
	// A null flag reads back as its default: drop such no-op changes.
	changed, err = changedFields(doc, mustDoc(&next), templatePatchSpecs)
	if err != nil {
		return intent.ClusterTemplate{}, nil, err
	}
	return next, changed, nil
}

// checkTemplateChange checks a template change on the snapshot being
// committed: the publish policy, the template's own rules and labels, the
// OpenStack references it changes (then Magnum's root-volume check, before
// the in-use check, as Magnum's save comes last), and that a template in
// use only changes what clusters do not depend on.
func (s *Server) checkTemplateChange(c *gin.Context, lk *lookups, sn *gitstore.Snapshot, cur, next *intent.ClusterTemplate, changed []string) error {
	if (cur.Public != next.Public || cur.Hidden != next.Hidden) && !s.policy().Allowed("clustertemplate:publish", auth.Of(c), nil) {
		return apierr.Forbidden("Not authorized to set public or hidden flag for cluster template.")
	}
	if err := validateTemplate(next, s.cfg.DefaultNetworkDriver); err != nil {
		return err
	}
	if slices.Contains(changed, "labels") {
		if err := s.validateLabels(schemas.ScopeTemplate, next.Labels); err != nil {
			return err
		}
	}
	// The references the patch changes are resolved as on create, then
	// Magnum's root-volume check (before the in-use check, as Magnum's
	// save comes last).
	if err := lk.validateTemplateChange(c.Request.Context(), cur, next); err != nil {
		return err
	}
	if err := lk.checkTemplateRootDisks(c.Request.Context(), next, cur); err != nil {
		return err
	}
	if !referencedChangeAllowed(changed, next) {
		used, err := templateReferenced(sn, cur.UUID)
		if err != nil {
			return err
		}
		if used {
			return apierr.BadRequest("ClusterTemplate %s is referenced by one or multiple clusters.", cur.UUID)
		}
	}
	return nil
}

func mustDoc(t *intent.ClusterTemplate) map[string]any {
	d, err := templateDoc(t)
	if err != nil {
		panic(err) // a template always marshals
	}
	return d
}

// deleteTemplate is DELETE /v1/clustertemplates/{ident}; a template a
// cluster runs on is a 400 ClusterTemplateReferenced, as in Magnum.
func (s *Server) deleteTemplate(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	found, err := s.lookupTemplateForWrite(c, "clustertemplate:delete_all_projects", "clustertemplate:delete")
	if err != nil {
		return err
	}
	err = s.commit(c, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		cur, fp, err := readTemplate(sn, found)
		if err != nil {
			return nil, err
		}
		used, err := templateReferenced(sn, cur.UUID)
		if err != nil {
			return nil, err
		}
		if used {
			return nil, apierr.BadRequest("ClusterTemplate %s is referenced by one or multiple clusters.", cur.UUID)
		}
		return commitFor(c, fmt.Sprintf("clustertemplate %s: delete", cur.Name), status.OpDelete,
			[]gitstore.Change{{Path: fp, Delete: true}}), nil
	})
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
