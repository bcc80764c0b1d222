// Package intent defines the Magnum objects as keel stores them in Git: one
// YAML document per object, with Magnum's own field names so that a platform
// team reviewing a pull request reads the same words the API and the
// `openstack coe` CLI show. The schema for these documents is schemas/*.cue.
package intent

import (
	"time"
)

// APIVersion is the apiVersion of every intent document keel writes.
const APIVersion = "keel.openkeel.io/v1alpha1"

// Kinds of intent documents.
const (
	KindClusterTemplate = "ClusterTemplate"
	KindCluster         = "Cluster"
	KindNodeGroup       = "NodeGroup"
	KindQuota           = "Quota"
)

// TypeMeta heads every intent document.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// ClusterTemplate is a Magnum cluster template. Optional fields are pointers:
// nil means "not set" and is omitted from the document, as Magnum stores NULL.
type ClusterTemplate struct {
	TypeMeta `json:",inline"`

	// ID is Magnum's internal integer id, kept in Git so that it survives a
	// rebuild of the read model (a cluster create may name a template by it).
	ID        int64  `json:"id"`
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	ProjectID string `json:"project_id"`
	UserID    string `json:"user_id"`

	COE                 string            `json:"coe"`
	ImageID             string            `json:"image_id"`
	FlavorID            *string           `json:"flavor_id,omitempty"`
	MasterFlavorID      *string           `json:"master_flavor_id,omitempty"`
	DNSNameserver       *string           `json:"dns_nameserver,omitempty"`
	KeypairID           *string           `json:"keypair_id,omitempty"`
	ExternalNetworkID   *string           `json:"external_network_id,omitempty"`
	FixedNetwork        *string           `json:"fixed_network,omitempty"`
	FixedSubnet         *string           `json:"fixed_subnet,omitempty"`
	NetworkDriver       *string           `json:"network_driver,omitempty"`
	VolumeDriver        *string           `json:"volume_driver,omitempty"`
	APIServerPort       *int64            `json:"apiserver_port,omitempty"`
	DockerVolumeSize    *int64            `json:"docker_volume_size,omitempty"`
	DockerStorageDriver *string           `json:"docker_storage_driver,omitempty"`
	ClusterDistro       *string           `json:"cluster_distro,omitempty"`
	HTTPProxy           *string           `json:"http_proxy,omitempty"`
	HTTPSProxy          *string           `json:"https_proxy,omitempty"`
	NoProxy             *string           `json:"no_proxy,omitempty"`
	InsecureRegistry    *string           `json:"insecure_registry,omitempty"`
	Labels              map[string]string `json:"labels,omitempty"`
	RegistryEnabled     bool              `json:"registry_enabled"`
	TLSDisabled         bool              `json:"tls_disabled"`
	Public              bool              `json:"public"`
	Hidden              bool              `json:"hidden"`
	MasterLBEnabled     bool              `json:"master_lb_enabled"`
	FloatingIPEnabled   bool              `json:"floating_ip_enabled"`
	ServerType          string            `json:"server_type"`
	Tags                *string           `json:"tags,omitempty"`
	Driver              *string           `json:"driver,omitempty"`

	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// Cluster is a Magnum cluster: what the user asked for, after Magnum's
// fallbacks to the template were applied at create time.
type Cluster struct {
	TypeMeta `json:",inline"`

	ID        int64  `json:"id"`
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	ProjectID string `json:"project_id"`
	UserID    string `json:"user_id"`

	// ClusterTemplateID is the UUID of the template the cluster runs on.
	ClusterTemplateID string            `json:"cluster_template_id"`
	Keypair           *string           `json:"keypair,omitempty"`
	DockerVolumeSize  *int64            `json:"docker_volume_size,omitempty"`
	MasterFlavorID    *string           `json:"master_flavor_id,omitempty"`
	FlavorID          *string           `json:"flavor_id,omitempty"`
	FixedNetwork      *string           `json:"fixed_network,omitempty"`
	FixedSubnet       *string           `json:"fixed_subnet,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	CreateTimeout     int64             `json:"create_timeout"`
	DiscoveryURL      *string           `json:"discovery_url,omitempty"`
	FloatingIPEnabled bool              `json:"floating_ip_enabled"`
	MasterLBEnabled   bool              `json:"master_lb_enabled"`

	// HealthStatus and HealthStatusReason may be set through the API (the
	// auto-healer patches them); observed health lives in the read model.
	HealthStatus       *string           `json:"health_status,omitempty"`
	HealthStatusReason map[string]string `json:"health_status_reason,omitempty"`

	// StackID is the name of the Cluster API Cluster (kube-xxxxx), generated
	// once at create time so that rendering stays deterministic.
	StackID string `json:"stack_id"`
	// ClusterClass pins the ClusterClass (magnum-<keel version>) this cluster
	// runs on; only an explicit upgrade moves it.
	ClusterClass string `json:"cluster_class,omitempty"`

	// Imported is set on a cluster `keel import` took from Magnum's
	// database and keel does not manage (see Imported).
	Imported *Imported `json:"imported,omitempty"`
	// Adopted is set on a cluster `keel import --adopt` took over from
	// another Cluster API driver with its Cluster API objects (see
	// Adopted).
	Adopted *Adopted `json:"adopted,omitempty"`
	// CARotation is where the cluster's latest CA rotation stands (nil:
	// never rotated).
	CARotation *CARotation `json:"ca_rotation,omitempty"`

	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// Imported marks a read-only record of a cluster imported from Magnum's
// database (docs/migration.md): keel keeps what Magnum knew of it but does
// not manage it. It has no rendered output; keel compile and the reconciler
// leave it alone (so nothing on the management cluster or in OpenStack is
// touched for it), the API refuses every change to it with a 409, and its
// status is the one Magnum had, with Reason as status_reason.
type Imported struct {
	// From names the source ("magnum").
	From string `json:"from"`
	// Driver is the Magnum driver that made the cluster, as far as the
	// import could tell ("" when it could not).
	Driver string `json:"driver,omitempty"`
	// Status is Magnum's status of the cluster at the import.
	Status string `json:"status"`
	// Reason is the status_reason the API shows: why keel does not manage
	// the cluster, then Magnum's own status_reason.
	Reason string `json:"reason"`
	// StackID is Magnum's stack_id when keel's kube-xxxxx form cannot hold
	// it (a Heat stack's UUID, or none): the API shows it, the folder
	// name and stack_id use a kube-xxxxx derived from the cluster's UUID.
	StackID string `json:"stack_id,omitempty"`
}

// Adopted records a cluster keel took over, with the Cluster API objects
// another driver made for it (docs/migration.md, "Adoption"). The Cluster
// stays on the driver's ClusterClass (Class) with the topology it was found
// with (Topology), so that keel's first apply changes no Machine; keel owns
// only the counts. The first upgrade moves the cluster onto keel's
// ClusterClass, with a planned rollout like any upgrade: from then on the
// record only says where the cluster came from.
type Adopted struct {
	// From names the driver that made the objects ("magnum-cluster-api").
	From string `json:"from"`
	// Status is Magnum's status of the cluster at the adoption: the
	// cluster keeps answering it (CREATE_COMPLETE stays CREATE_COMPLETE)
	// until keel's first operation on it.
	Status string `json:"status"`
	// Class is the ClusterClass the Cluster was found on.
	Class string `json:"class"`
	// Topology is the Cluster's spec.topology as found (Cluster API
	// v1beta2), and ClusterNetwork its spec.clusterNetwork: rendered
	// verbatim, but for the replicas, while the cluster is on Class.
	Topology       map[string]any `json:"topology"`
	ClusterNetwork map[string]any `json:"cluster_network,omitempty"`
	// FieldManagers are the driver's managers of the Cluster's topology:
	// keel takes their fields over when it applies
	// (AnnotationAdoptedFieldManagers).
	FieldManagers []FieldManager `json:"field_managers,omitempty"`
	// Changes are what the adoption changes in what ran (Magnum's counts
	// or kube_tag against the running ones), taken with --adopt-changes;
	// none for an adoption that changes no machine. `keel plan` shows them.
	Changes []string `json:"changes,omitempty"`
}

// OnAdoptedClass reports whether the cluster still runs on the ClusterClass
// it was adopted on (no upgrade through keel yet).
func (c *Cluster) OnAdoptedClass() bool {
	return c.Adopted != nil && c.ClusterClass == c.Adopted.Class
}

// ReadOnly reports whether keel refuses changes to the cluster (an
// imported record it does not manage).
func (c *Cluster) ReadOnly() bool { return c.Imported != nil }

// MagnumStackID is the stack_id the API shows: Magnum's own for an
// imported cluster whose stack_id keel's form could not hold.
func (c *Cluster) MagnumStackID() string {
	if c.Imported != nil && c.Imported.StackID != "" {
		return c.Imported.StackID
	}
	return c.StackID
}

// NodeGroup is a Magnum nodegroup. Every cluster has a default master and a
// default worker nodegroup.
type NodeGroup struct {
	TypeMeta `json:",inline"`

	ID        int64  `json:"id"`
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	ClusterID string `json:"cluster_id"`
	ProjectID string `json:"project_id"`

	Role             string            `json:"role"`
	IsDefault        bool              `json:"is_default"`
	NodeCount        int64             `json:"node_count"`
	MinNodeCount     int64             `json:"min_node_count"`
	MaxNodeCount     *int64            `json:"max_node_count,omitempty"`
	FlavorID         *string           `json:"flavor_id,omitempty"`
	ImageID          *string           `json:"image_id,omitempty"`
	DockerVolumeSize *int64            `json:"docker_volume_size,omitempty"`
	Labels           map[string]string `json:"labels,omitempty"`
	NodeLabels       map[string]string `json:"node_labels,omitempty"`
	NodeTaints       []Taint           `json:"node_taints,omitempty"`
	// NodesToRemove names the machines (Node names, Machine names or
	// provider IDs) a shrinking resize should remove first; the reconciler
	// marks them with cluster.x-k8s.io/delete-machine.
	NodesToRemove []string `json:"nodes_to_remove,omitempty"`

	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// Taint is a Kubernetes node taint as Magnum 1.14 accepts it.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// Nodegroup roles.
const (
	RoleMaster = "master"
	RoleWorker = "worker"
)

// Names of the default nodegroups Magnum creates with every cluster.
const (
	DefaultMasterNodeGroup = "default-master"
	DefaultWorkerNodeGroup = "default-worker"
)

// Quota is a Magnum quota row (resource "Cluster" only).
type Quota struct {
	TypeMeta `json:",inline"`

	ID        int64      `json:"id"`
	ProjectID string     `json:"project_id"`
	Resource  string     `json:"resource"`
	HardLimit int64      `json:"hard_limit"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// Ptr returns a pointer to v; handy for the optional fields above.
func Ptr[T any](v T) *T { return &v }

// Deref returns *p, or the zero value when p is nil.
func Deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
