package magnumimport

import (
	"errors"
	"fmt"
	"time"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

func meta(kind string) intent.TypeMeta {
	return intent.TypeMeta{APIVersion: intent.APIVersion, Kind: kind}
}

// created is a row's created_at; Magnum sets it on every insert, a row
// without one (written by hand) gets the Unix epoch rather than the time
// of the import, so that a second run writes the same document.
func created(x *reader) time.Time {
	if t := x.time("created_at"); t != nil {
		return *t
	}
	return time.Unix(0, 0).UTC()
}

// normalize applies schemas.NormalizeLabels to labels in place.
func normalize(labels *map[string]string, into *[]schemas.Normalized) {
	var n []schemas.Normalized
	*labels, n = schemas.NormalizeLabels(*labels)
	*into = append(*into, n...)
}

func mapTemplate(r row) Object[intent.ClusterTemplate] {
	x := &reader{r: r}
	t := intent.ClusterTemplate{
		TypeMeta: meta(intent.KindClusterTemplate), ID: x.int("id"), UUID: x.str("uuid"), Name: x.str("name"),
		ProjectID: x.str("project_id"), UserID: x.str("user_id"), COE: x.str("coe"), ImageID: x.str("image_id"),
		FlavorID: x.opt("flavor_id"), MasterFlavorID: x.opt("master_flavor_id"), DNSNameserver: x.opt("dns_nameserver"),
		KeypairID: x.opt("keypair_id"), ExternalNetworkID: x.opt("external_network_id"), FixedNetwork: x.opt("fixed_network"),
		FixedSubnet: x.opt("fixed_subnet"), NetworkDriver: x.opt("network_driver"), VolumeDriver: x.opt("volume_driver"),
		APIServerPort: x.optInt("apiserver_port"), DockerVolumeSize: x.optInt("docker_volume_size"),
		DockerStorageDriver: x.opt("docker_storage_driver"), ClusterDistro: x.opt("cluster_distro"),
		HTTPProxy: x.opt("http_proxy"), HTTPSProxy: x.opt("https_proxy"), NoProxy: x.opt("no_proxy"),
		InsecureRegistry: x.opt("insecure_registry"), Labels: x.labels("labels"),
		RegistryEnabled: x.bool("registry_enabled", false), TLSDisabled: x.bool("tls_disabled", false),
		Public: x.bool("public", false), Hidden: x.bool("hidden", false),
		MasterLBEnabled: x.bool("master_lb_enabled", false), FloatingIPEnabled: x.bool("floating_ip_enabled", true),
		ServerType: x.str("server_type"), Tags: x.opt("tags"), Driver: x.opt("driver"),
		CreatedAt: created(x), UpdatedAt: x.time("updated_at"),
	}
	o := Object[intent.ClusterTemplate]{Doc: t}
	normalize(&o.Doc.Labels, &o.Normalized)
	o.Err = x.err
	return o
}

func mapQuota(r row) Object[intent.Quota] {
	x := &reader{r: r}
	q := intent.Quota{TypeMeta: meta(intent.KindQuota), ID: x.int("id"), ProjectID: x.str("project_id"),
		Resource: x.str("resource"), HardLimit: x.int("hard_limit"), CreatedAt: created(x), UpdatedAt: x.time("updated_at")}
	o := Object[intent.Quota]{Doc: q, Err: x.err}
	if o.Err == nil && q.Resource != "Cluster" {
		o.Err = fmt.Errorf("resource %q: keel keeps quotas of resource Cluster only (Magnum's API takes no other)", q.Resource)
	}
	return o
}

func mapCluster(r, tmpl row, ngRows []row) ClusterObject {
	x := &reader{r: r}
	c := intent.Cluster{
		TypeMeta: meta(intent.KindCluster), ID: x.int("id"), UUID: x.str("uuid"), Name: x.str("name"),
		ProjectID: x.str("project_id"), UserID: x.str("user_id"), ClusterTemplateID: x.str("cluster_template_id"),
		Keypair: x.opt("keypair"), DockerVolumeSize: x.optInt("docker_volume_size"),
		MasterFlavorID: x.opt("master_flavor_id"), FlavorID: x.opt("flavor_id"),
		FixedNetwork: x.opt("fixed_network"), FixedSubnet: x.opt("fixed_subnet"), Labels: x.labels("labels"),
		CreateTimeout: x.int("create_timeout"), DiscoveryURL: x.opt("discovery_url"),
		FloatingIPEnabled: x.bool("floating_ip_enabled", true), MasterLBEnabled: x.bool("master_lb_enabled", false),
		HealthStatus: x.opt("health_status"), HealthStatusReason: x.stringMap("health_status_reason"),
		CreatedAt: created(x), UpdatedAt: x.time("updated_at"),
	}
	if c.HealthStatus != nil && *c.HealthStatus == "" {
		c.HealthStatus = nil
	}
	stack := x.str("stack_id")
	driver, why := classify(tmpl, stack)
	c.Imported = &intent.Imported{From: "magnum", Driver: driver, Status: x.str("status"),
		Reason: readOnlyReason(why, x.str("status_reason"))}
	if intent.ValidStackID(stack) {
		c.StackID = stack
	} else {
		c.Imported.StackID = stack // the folder's kube-xxxxx is chosen when planned
	}
	o := ClusterObject{Object: Object[intent.Cluster]{Doc: c}}
	normalize(&o.Doc.Labels, &o.Normalized)
	for _, nr := range ngRows {
		o.NodeGroups = append(o.NodeGroups, mapNodeGroup(nr))
	}
	o.Err = x.err
	if o.Err == nil && len(o.NodeGroups) == 0 {
		o.Err = errors.New("it has no nodegroups (Magnum's nodegroup table holds none for it)")
	}
	return o
}

func mapNodeGroup(r row) Object[intent.NodeGroup] {
	x := &reader{r: r}
	ng := intent.NodeGroup{
		TypeMeta: meta(intent.KindNodeGroup), ID: x.int("id"), UUID: x.str("uuid"), Name: x.str("name"),
		ClusterID: x.str("cluster_id"), ProjectID: x.str("project_id"), Role: x.str("role"),
		IsDefault: x.bool("is_default", false), NodeCount: x.int("node_count"), MinNodeCount: x.int("min_node_count"),
		MaxNodeCount: x.optInt("max_node_count"), FlavorID: x.opt("flavor_id"), ImageID: x.opt("image_id"),
		DockerVolumeSize: x.optInt("docker_volume_size"), Labels: x.labels("labels"),
		NodeLabels: x.labels("node_labels"), NodeTaints: x.taints("node_taints"),
		CreatedAt: created(x), UpdatedAt: x.time("updated_at"),
	}
	o := Object[intent.NodeGroup]{Doc: ng}
	normalize(&o.Doc.Labels, &o.Normalized)
	o.Err = x.err
	return o
}
