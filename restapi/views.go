package restapi

import (
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/schemas"
)

// The API's views of clusters, nodegroups and templates: one type per
// shape, shared by the list and show routes. Field names, and whether a
// field is null or absent, are Magnum's wire contract: a nil pointer,
// map or slice is null; only omitempty fields are ever absent.

// clusterSummary is a cluster in a list.
type clusterSummary struct {
	UUID              string            `json:"uuid"`
	Name              string            `json:"name"`
	ClusterTemplateID string            `json:"cluster_template_id"`
	Keypair           *string           `json:"keypair"`
	DockerVolumeSize  *int64            `json:"docker_volume_size"`
	Labels            map[string]string `json:"labels"`
	NodeCount         int64             `json:"node_count"`
	MasterCount       int64             `json:"master_count"`
	Status            string            `json:"status"`
	HealthStatus      *string           `json:"health_status"`
	MasterFlavorID    *string           `json:"master_flavor_id"`
	FlavorID          *string           `json:"flavor_id"`
	CreateTimeout     int64             `json:"create_timeout"`
	Links             []link            `json:"links"`
	MergeLabels       bool              `json:"merge_labels"`
	// The stack id is cluster_id from microversion 1.13, stack_id before.
	ClusterID *string `json:"cluster_id,omitempty"`
	StackID   *string `json:"stack_id,omitempty"`
}

// clusterDetail is a cluster in a detailed list or shown alone.
type clusterDetail struct {
	clusterSummary
	StatusReason       *string           `json:"status_reason"`
	HealthStatusReason map[string]string `json:"health_status_reason"`
	APIAddress         *string           `json:"api_address"`
	COEVersion         *string           `json:"coe_version"`
	ContainerVersion   *string           `json:"container_version"`
	MasterAddresses    []string          `json:"master_addresses"`
	NodeAddresses      []string          `json:"node_addresses"`
	DiscoveryURL       *string           `json:"discovery_url"`
	ProjectID          string            `json:"project_id"`
	UserID             string            `json:"user_id"`
	CreatedAt          *string           `json:"created_at"`
	UpdatedAt          *string           `json:"updated_at"`
	FixedNetwork       *string           `json:"fixed_network"`
	FixedSubnet        *string           `json:"fixed_subnet"`
	FloatingIPEnabled  bool              `json:"floating_ip_enabled"`
	MasterLBEnabled    bool              `json:"master_lb_enabled"`
	LabelsOverridden   map[string]string `json:"labels_overridden"`
	LabelsAdded        map[string]string `json:"labels_added"`
	LabelsSkipped      map[string]string `json:"labels_skipped"`
	// Faults is set on a cluster shown alone in a *_FAILED status.
	Faults *map[string]string `json:"faults,omitempty"`
}

// clusterHealth is the cluster's health_status and health_status_reason
// (readmodel.Health): cl is the cluster as it is, or as a patch would make
// it.
func clusterHealth(cl *intent.Cluster, v *readmodel.ClusterView, whileCreating bool) (*string, map[string]string) {
	return readmodel.Health(cl, v.Result, v.Observed, whileCreating)
}

// nodeCounts are the size of a cluster's control plane (its master
// nodegroups' node counts, Magnum's master_count) and of its workers.
func nodeCounts(ngs []intent.NodeGroup) (masters, workers int64) {
	for _, ng := range ngs {
		if ng.Role == intent.RoleMaster {
			masters += ng.NodeCount
		} else {
			workers += ng.NodeCount
		}
	}
	return masters, workers
}

func intentNodeGroups(v *readmodel.ClusterView) []intent.NodeGroup {
	out := make([]intent.NodeGroup, len(v.NodeGroups))
	for i, ng := range v.NodeGroups {
		out[i] = ng.NodeGroup
	}
	return out
}

// newClusterSummary is a cluster as a list shows it. Its node_count counts
// every worker nodegroup.
func newClusterSummary(c *gin.Context, v *readmodel.ClusterView) clusterSummary {
	masters, nodes := nodeCounts(intentNodeGroups(v))
	labels := v.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	health, _ := clusterHealth(&v.Cluster, v, false)
	out := clusterSummary{
		UUID: v.UUID, Name: v.Name, ClusterTemplateID: v.ClusterTemplateID, Keypair: v.Keypair,
		DockerVolumeSize: v.DockerVolumeSize, Labels: labels, NodeCount: nodes, MasterCount: masters,
		Status: v.Result.Status, HealthStatus: health, MasterFlavorID: v.MasterFlavorID, FlavorID: v.FlavorID,
		CreateTimeout: v.CreateTimeout, Links: links(c, "clusters", v.UUID),
	}
	stackID := v.MagnumStackID()
	if versionOf(c).AtLeast(13) {
		out.ClusterID = &stackID
	} else {
		out.StackID = &stackID
	}
	return out
}

// newClusterDetail is a cluster as a detailed list or a show gives it;
// tmpl (nil when unknown) gives the label diffs.
func newClusterDetail(c *gin.Context, v *readmodel.ClusterView, tmpl *intent.ClusterTemplate) clusterDetail {
	out := clusterDetail{
		clusterSummary:  newClusterSummary(c, v),
		StatusReason:    nilIfEmpty(v.Result.StatusReason),
		MasterAddresses: []string{}, NodeAddresses: []string{},
		DiscoveryURL: v.DiscoveryURL, ProjectID: v.ProjectID, UserID: v.UserID,
		CreatedAt: timestamp(&v.CreatedAt), UpdatedAt: timestamp(v.Changed),
		FixedNetwork: v.FixedNetwork, FixedSubnet: v.FixedSubnet,
		FloatingIPEnabled: v.FloatingIPEnabled, MasterLBEnabled: v.MasterLBEnabled,
		LabelsOverridden: map[string]string{}, LabelsAdded: map[string]string{}, LabelsSkipped: map[string]string{},
	}
	if health, reason := clusterHealth(&v.Cluster, v, false); health != nil {
		out.HealthStatusReason = reason
	} else {
		out.HealthStatusReason = map[string]string{}
	}
	if o := v.Observed; o != nil {
		out.APIAddress = nilIfEmpty(o.APIAddress)
		out.COEVersion = nilIfEmpty(o.COEVersion)
		out.MasterAddresses = append(out.MasterAddresses, o.MasterAddresses...)
		out.NodeAddresses = append(out.NodeAddresses, o.NodeAddresses...)
	}
	if tmpl != nil {
		out.LabelsOverridden, out.LabelsAdded, out.LabelsSkipped = schemas.LabelDiff(tmpl.Labels, out.Labels)
	}
	return out
}

// withFaults adds Magnum's faults to a cluster shown in a *_FAILED status:
// the failed nodegroups (and those in the cluster's status) with the
// cluster's reason.
func (d *clusterDetail) withFaults(v *readmodel.ClusterView) {
	if !strings.HasSuffix(v.Result.Status, "_FAILED") {
		return
	}
	faults := map[string]string{}
	for _, ng := range v.NodeGroups {
		if strings.HasSuffix(ng.Status, "_FAILED") || ng.Status == v.Result.Status {
			faults[ng.Name] = v.Result.StatusReason
		}
	}
	d.Faults = &faults
}

// nodeGroupSummary is a nodegroup in a list: Magnum's few keys, with
// min/max at their defaults, as Magnum's list shows them.
type nodeGroupSummary struct {
	UUID         string  `json:"uuid"`
	Name         string  `json:"name"`
	FlavorID     *string `json:"flavor_id"`
	NodeCount    int64   `json:"node_count"`
	Role         string  `json:"role"`
	IsDefault    bool    `json:"is_default"`
	ImageID      *string `json:"image_id"`
	Status       string  `json:"status"`
	StackID      string  `json:"stack_id"`
	MinNodeCount int64   `json:"min_node_count"`
	MaxNodeCount *int64  `json:"max_node_count"`
	MergeLabels  bool    `json:"merge_labels"`
}

// nodeGroupDetail is a nodegroup shown alone (or answered after a change).
type nodeGroupDetail struct {
	nodeGroupSummary
	ID               int64             `json:"id"`
	ClusterID        string            `json:"cluster_id"`
	ProjectID        string            `json:"project_id"`
	DockerVolumeSize *int64            `json:"docker_volume_size"`
	Labels           map[string]string `json:"labels"`
	LabelsOverridden map[string]string `json:"labels_overridden"`
	LabelsAdded      map[string]string `json:"labels_added"`
	LabelsSkipped    map[string]string `json:"labels_skipped"`
	NodeAddresses    []string          `json:"node_addresses"`
	StatusReason     *string           `json:"status_reason"`
	Version          *string           `json:"version"`
	NodeLabels       map[string]string `json:"node_labels"`
	NodeTaints       []intent.Taint    `json:"node_taints"`
	Links            []link            `json:"links"`
	CreatedAt        *string           `json:"created_at"`
	UpdatedAt        *string           `json:"updated_at"`
}

func newNodeGroupSummary(cl *readmodel.ClusterView, ng *readmodel.NodeGroupView) nodeGroupSummary {
	return nodeGroupSummary{
		UUID: ng.UUID, Name: ng.Name, FlavorID: ng.FlavorID, NodeCount: ng.NodeCount, Role: ng.Role,
		IsDefault: ng.IsDefault, ImageID: ng.ImageID, Status: ng.Status, StackID: cl.MagnumStackID(),
	}
}

func newNodeGroupDetail(c *gin.Context, cl *readmodel.ClusterView, ng *readmodel.NodeGroupView) nodeGroupDetail {
	sum := newNodeGroupSummary(cl, ng)
	sum.MinNodeCount, sum.MaxNodeCount = ng.MinNodeCount, ng.MaxNodeCount
	labels := ng.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	out := nodeGroupDetail{
		nodeGroupSummary: sum, ID: ng.ID, ClusterID: cl.UUID, ProjectID: ng.ProjectID,
		DockerVolumeSize: ng.DockerVolumeSize, Labels: labels,
		NodeAddresses: append([]string{}, ng.Addresses...),
		NodeLabels:    ng.NodeLabels, NodeTaints: ng.NodeTaints,
		Links:     links(c, "clusters/"+cl.UUID+"/nodegroups", ng.UUID),
		CreatedAt: timestamp(&ng.CreatedAt), UpdatedAt: timestamp(ng.UpdatedAt),
	}
	// The cluster's reason explains a nodegroup in the same state of the
	// same operation (a nodegroup the update creates is CREATE_*).
	if _, ngState, _ := strings.Cut(ng.Status, "_"); strings.HasSuffix(cl.Result.Status, "_"+ngState) {
		out.StatusReason = nilIfEmpty(cl.Result.StatusReason)
	}
	out.Version = nilIfEmpty(readmodel.NodeGroupVersion(&ng.NodeGroup, &cl.Cluster))
	out.LabelsOverridden, out.LabelsAdded, out.LabelsSkipped = schemas.LabelDiff(cl.Labels, labels)
	return out
}

// templateView is a cluster template, listed or shown (Magnum's lists
// give every attribute).
type templateView struct {
	UUID                string            `json:"uuid"`
	Name                string            `json:"name"`
	ProjectID           string            `json:"project_id"`
	UserID              string            `json:"user_id"`
	COE                 string            `json:"coe"`
	ImageID             string            `json:"image_id"`
	FlavorID            *string           `json:"flavor_id"`
	MasterFlavorID      *string           `json:"master_flavor_id"`
	DNSNameserver       *string           `json:"dns_nameserver"`
	KeypairID           *string           `json:"keypair_id"`
	ExternalNetworkID   *string           `json:"external_network_id"`
	FixedNetwork        *string           `json:"fixed_network"`
	FixedSubnet         *string           `json:"fixed_subnet"`
	NetworkDriver       *string           `json:"network_driver"`
	VolumeDriver        *string           `json:"volume_driver"`
	APIServerPort       *int64            `json:"apiserver_port"`
	DockerVolumeSize    *int64            `json:"docker_volume_size"`
	DockerStorageDriver *string           `json:"docker_storage_driver"`
	ClusterDistro       *string           `json:"cluster_distro"`
	HTTPProxy           *string           `json:"http_proxy"`
	HTTPSProxy          *string           `json:"https_proxy"`
	NoProxy             *string           `json:"no_proxy"`
	InsecureRegistry    *string           `json:"insecure_registry"`
	Labels              map[string]string `json:"labels"`
	RegistryEnabled     bool              `json:"registry_enabled"`
	TLSDisabled         bool              `json:"tls_disabled"`
	Public              bool              `json:"public"`
	Hidden              bool              `json:"hidden"`
	MasterLBEnabled     bool              `json:"master_lb_enabled"`
	FloatingIPEnabled   bool              `json:"floating_ip_enabled"`
	ServerType          string            `json:"server_type"`
	Tags                *string           `json:"tags"`
	Driver              *string           `json:"driver"`
	CreatedAt           *string           `json:"created_at"`
	UpdatedAt           *string           `json:"updated_at"`
	Links               []link            `json:"links"`
}

func newTemplateView(c *gin.Context, t *intent.ClusterTemplate) templateView {
	labels := t.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	return templateView{
		UUID: t.UUID, Name: t.Name, ProjectID: t.ProjectID, UserID: t.UserID,
		COE: t.COE, ImageID: t.ImageID, FlavorID: t.FlavorID, MasterFlavorID: t.MasterFlavorID,
		DNSNameserver: t.DNSNameserver, KeypairID: t.KeypairID, ExternalNetworkID: t.ExternalNetworkID,
		FixedNetwork: t.FixedNetwork, FixedSubnet: t.FixedSubnet, NetworkDriver: t.NetworkDriver,
		VolumeDriver: t.VolumeDriver, APIServerPort: t.APIServerPort, DockerVolumeSize: t.DockerVolumeSize,
		DockerStorageDriver: t.DockerStorageDriver, ClusterDistro: t.ClusterDistro,
		HTTPProxy: t.HTTPProxy, HTTPSProxy: t.HTTPSProxy, NoProxy: t.NoProxy,
		InsecureRegistry: t.InsecureRegistry, Labels: labels,
		RegistryEnabled: t.RegistryEnabled, TLSDisabled: t.TLSDisabled, Public: t.Public,
		Hidden: t.Hidden, MasterLBEnabled: t.MasterLBEnabled, FloatingIPEnabled: t.FloatingIPEnabled,
		ServerType: t.ServerType, Tags: t.Tags, Driver: t.Driver,
		CreatedAt: timestamp(&t.CreatedAt), UpdatedAt: timestamp(t.UpdatedAt),
		Links: links(c, "clustertemplates", t.UUID),
	}
}
