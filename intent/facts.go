package intent

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

// KindFacts is the kind of a facts document: the OpenStack facts of one
// cluster, as `keel render -f` reads them next to the intent documents and
// as a cluster folder may hold them in FactsFile.
const KindFacts = "Facts"

// FactsFile is where a cluster folder records its facts (optional: without
// it, names stand for themselves, e.g. flavor_id is the flavor name).
const FactsFile = "facts.yaml"

// Facts are OpenStack values resolved when the API accepted the change, so
// that compiling needs no OpenStack access.
type Facts struct {
	// Flavor names by Magnum flavor_id (name or ID as the user gave it).
	FlavorNames map[string]string `json:"flavor_names,omitempty"`
	// ImageUUIDs by Magnum image_id (name or ID).
	ImageUUIDs map[string]string `json:"image_uuids,omitempty"`
	// ExternalNetworkID is the resolved template external network.
	ExternalNetworkID string `json:"external_network_id,omitempty"`
	// Flavors describes Nova flavors by name (as FlavorNames resolves
	// them): the autoscaler's scale-from-zero capacity.
	Flavors map[string]Flavor `json:"flavors,omitempty"`
	// ImageDiskBuses is the hw_disk_bus property of Glance images by UUID
	// (scsi names extra disks /dev/sdX).
	ImageDiskBuses map[string]string `json:"image_disk_buses,omitempty"`
	// FixedNetworkID and FixedSubnetID are the cluster's fixed_network and
	// fixed_subnet (or the template's) resolved to IDs.
	FixedNetworkID string `json:"fixed_network_id,omitempty"`
	FixedSubnetID  string `json:"fixed_subnet_id,omitempty"`
	// ServerGroupIDs are the Nova server groups created for the cluster, by
	// nodegroup name (the master nodegroup's is the control plane's,
	// <stack_id>; the others are <stack_id>-<nodegroup>).
	ServerGroupIDs map[string]string `json:"server_group_ids,omitempty"`
	// CredentialGeneration counts the rotations of the cluster's
	// application credential (PATCH /v1/credentials). The workloads that
	// read cloud.conf only when they start carry it on their pod template,
	// so that a rotation restarts them; it is here, in plain text, because
	// the compiled manifests must not depend on encrypted input.
	CredentialGeneration int64 `json:"credential_generation,omitempty"`
}

// Flavor is what rendering needs of a Nova flavor.
type Flavor struct {
	VCPUs  int64 `json:"vcpus"`
	RAMMiB int64 `json:"ram_mib"`
	// DiskGiB is the root disk; 0 for flavors that need a boot volume.
	DiskGiB int64 `json:"disk_gib"`
}

// IsZero reports whether no fact is recorded: a write that resolved nothing.
func (f Facts) IsZero() bool {
	return len(f.FlavorNames) == 0 && len(f.ImageUUIDs) == 0 && f.ExternalNetworkID == "" &&
		len(f.Flavors) == 0 && len(f.ImageDiskBuses) == 0 && f.FixedNetworkID == "" &&
		f.FixedSubnetID == "" && len(f.ServerGroupIDs) == 0 && f.CredentialGeneration == 0
}

// FlavorName is the Nova flavor name of a Magnum flavor_id; an unresolved
// reference stands for itself.
func (f Facts) FlavorName(id string) string {
	if n, ok := f.FlavorNames[id]; ok {
		return n
	}
	return id
}

// ImageUUID is the Glance image UUID of a Magnum image_id; an unresolved
// reference stands for itself.
func (f Facts) ImageUUID(id string) string {
	if u, ok := f.ImageUUIDs[id]; ok {
		return u
	}
	return id
}

// ExternalNetwork is the resolved external network, else the template's
// reference as given.
func (f Facts) ExternalNetwork(id string) string {
	if f.ExternalNetworkID != "" {
		return f.ExternalNetworkID
	}
	return id
}

// FactsDocument is the YAML form of Facts.
type FactsDocument struct {
	TypeMeta `json:",inline"`
	Facts    `json:",inline"`
}

// ParseFacts reads a Facts document (strictly: an unknown field is an error).
func ParseFacts(data []byte) (Facts, error) {
	var d FactsDocument
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		return Facts{}, err
	}
	if d.APIVersion != APIVersion || d.Kind != KindFacts {
		return Facts{}, fmt.Errorf("expected apiVersion %s kind %s, found %q %q", APIVersion, KindFacts, d.APIVersion, d.Kind)
	}
	return d.Facts, nil
}

// MarshalFacts renders a Facts document.
func MarshalFacts(f Facts) ([]byte, error) {
	return yaml.Marshal(FactsDocument{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindFacts}, Facts: f})
}
