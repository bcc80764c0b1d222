package magnumdbtest

import (
	"encoding/json"
	"testing"
)

// The rows below are what Magnum's API (templates, quotas) and conductor
// (clusters, nodegroups) write: the column set of the migrated schema,
// labels as the JSON text Magnum's JSONEncodedDict stores, naive UTC
// timestamps as oslo.db writes them.

const (
	ProjectA = "5f3c0e1a2b3c4d5e6f708192a3b4c5d6"
	ProjectB = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	UserA    = "8a1e2b3c4d5e6f708192a3b4c5d6e7f8"

	TmplCAPI = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	TmplHeat = "6b1d0f0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b"

	ClusterCAPI = "e1c2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7"
	ClusterHeat = "f0e1d2c3-b4a5-4968-8778-695a4b3c2d1e"
	HeatStack   = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"
)

// LabelsJSON is labels as Magnum's JSONEncodedDict stores them ("{}" for
// none: it never stores NULL, and its API fails on a NULL).
func LabelsJSON(m map[string]string) string {
	if m == nil {
		return "{}"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TemplateRow is a cluster template's varying columns.
type TemplateRow struct {
	ID                                     int
	UUID, Project, Name, Distro, NetDriver string
	Labels                                 map[string]string
	Public, Hidden                         bool
}

// InsertTemplate writes a cluster_template row as Magnum's API does.
func InsertTemplate(t testing.TB, m DB, r TemplateRow) {
	m.Exec(t, `INSERT INTO cluster_template (id, uuid, project_id, user_id, name, image_id, flavor_id, master_flavor_id,
		keypair_id, external_network_id, fixed_network, fixed_subnet, network_driver, volume_driver, dns_nameserver,
		apiserver_port, docker_volume_size, docker_storage_driver, cluster_distro, coe, http_proxy, https_proxy, no_proxy,
		registry_enabled, labels, tls_disabled, public, server_type, insecure_registry, master_lb_enabled,
		floating_ip_enabled, hidden, tags, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.UUID, r.Project, UserA, r.Name, r.Distro+"-image", "m1.medium", "m1.large",
		"ops-key", "public", nil, nil, r.NetDriver, "cinder", "8.8.8.8",
		nil, 20, nil, r.Distro, "kubernetes", nil, nil, nil,
		false, LabelsJSON(r.Labels), false, r.Public, "vm", nil, true,
		true, r.Hidden, nil, "2026-01-02 03:04:05", nil)
}

// ClusterRow is a cluster's varying columns.
type ClusterRow struct {
	ID                                          int
	UUID, Project, Name, Template, Stack, State string
	Reason                                      string
	Labels                                      map[string]string
}

// InsertCluster writes a cluster row as Magnum's conductor does.
func InsertCluster(t testing.TB, m DB, r ClusterRow) {
	m.Exec(t, `INSERT INTO cluster (id, project_id, user_id, uuid, name, cluster_template_id, keypair, docker_volume_size,
		labels, master_flavor_id, flavor_id, stack_id, api_address, status, status_reason, health_status,
		health_status_reason, create_timeout, discovery_url, trust_id, trustee_username, trustee_user_id,
		trustee_password, coe_version, container_version, ca_cert_ref, magnum_cert_ref, etcd_ca_cert_ref,
		front_proxy_ca_cert_ref, fixed_network, fixed_subnet, floating_ip_enabled, master_lb_enabled, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Project, UserA, r.UUID, r.Name, r.Template, "ops-key", 20,
		LabelsJSON(r.Labels), "m1.large", "m1.medium", r.Stack, "https://203.0.113.10:6443", r.State, r.Reason, "HEALTHY",
		`{"api": "ok"}`, 60, nil, "trust-1", "trustee", "tu-1",
		"secret-not-imported", "v1.32.4", "1.0.0", "ca-ref", "magnum-ref", "etcd-ref",
		"proxy-ref", nil, nil, true, false, "2026-01-03 04:05:06", "2026-01-04 05:06:07")
}

// NodeGroupRow is a nodegroup's varying columns.
type NodeGroupRow struct {
	ID                           int
	UUID, Cluster, Project, Name string
	Role                         string
	Count, Min                   int
	Max                          any
	IsDefault                    bool
	Labels                       map[string]string
}

// InsertNodeGroup writes a nodegroup row as Magnum's conductor does.
func InsertNodeGroup(t testing.TB, m DB, r NodeGroupRow) {
	m.Exec(t, `INSERT INTO nodegroup (id, uuid, name, cluster_id, project_id, docker_volume_size, labels, flavor_id, image_id,
		node_addresses, node_count, role, max_node_count, min_node_count, is_default, stack_id, status, status_reason,
		version, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.UUID, r.Name, r.Cluster, r.Project, 20, LabelsJSON(r.Labels), "m1.medium", "ubuntu-image",
		`["10.0.0.5"]`, r.Count, r.Role, r.Max, r.Min, r.IsDefault, "kube-ab12c", "CREATE_COMPLETE", nil,
		"v1.32.4", "2026-01-03 04:05:06", nil)
}

// InsertQuota writes a quotas row (resource Cluster).
func InsertQuota(t testing.TB, m DB, id int, project string, limit int) {
	m.Exec(t, `INSERT INTO quotas (id, project_id, resource, hard_limit, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, project, "Cluster", limit, "2026-01-01 00:00:00", nil)
}

// FillStandard writes the standard cloud: project A has a Cluster API
// template (its container_infra_prefix with the Heat convention's
// trailing slash), a cluster on it and a quota; project B has a Heat-era
// template and a Heat cluster.
func FillStandard(t testing.TB, m DB) { FillIn(t, m, ProjectA, ProjectB) }

// FillIn is FillStandard with the projects a and b (real Keystone
// projects, for Magnum's own API to serve them).
func FillIn(t testing.TB, m DB, a, b string) {
	InsertTemplate(t, m, TemplateRow{ID: 1, UUID: TmplCAPI, Project: a, Name: "k8s-v1.32", Distro: "ubuntu", NetDriver: "calico",
		Labels: map[string]string{"kube_tag": "v1.32.4", "container_infra_prefix": "registry.example.com/mirror/"}, Public: true})
	InsertTemplate(t, m, TemplateRow{ID: 2, UUID: TmplHeat, Project: b, Name: "fcos-heat", Distro: "fedora-coreos", NetDriver: "flannel",
		Labels: map[string]string{"kube_tag": "v1.21.11"}, Hidden: true})
	FillClusters(t, m, a, b, TmplCAPI, TmplHeat)
	InsertQuota(t, m, 1, a, 10)
}

// FillClusters writes the standard cloud's clusters and nodegroups, as
// Magnum's conductor does: project a's Cluster API cluster on template
// capi, project b's Heat cluster on template heat.
func FillClusters(t testing.TB, m DB, a, b, capi, heat string) {
	InsertCluster(t, m, ClusterRow{ID: 7, UUID: ClusterCAPI, Project: a, Name: "prod-a", Template: capi, Stack: "kube-ab12c",
		State: "CREATE_COMPLETE", Labels: map[string]string{"kube_tag": "v1.32.4"}})
	InsertNodeGroup(t, m, NodeGroupRow{ID: 11, UUID: "a0000000-0000-4000-8000-000000000001", Cluster: ClusterCAPI, Project: a,
		Name: "default-master", Role: "master", Count: 1, Min: 1, IsDefault: true})
	InsertNodeGroup(t, m, NodeGroupRow{ID: 12, UUID: "a0000000-0000-4000-8000-000000000002", Cluster: ClusterCAPI, Project: a,
		Name: "default-worker", Role: "worker", Count: 2, Min: 1, Max: 5, IsDefault: true})
	InsertCluster(t, m, ClusterRow{ID: 8, UUID: ClusterHeat, Project: b, Name: "legacy", Template: heat, Stack: HeatStack,
		State: "UPDATE_COMPLETE", Reason: "Stack UPDATE completed successfully"})
	InsertNodeGroup(t, m, NodeGroupRow{ID: 13, UUID: "b0000000-0000-4000-8000-000000000001", Cluster: ClusterHeat, Project: b,
		Name: "default-master", Role: "master", Count: 1, Min: 1, IsDefault: true})
	InsertNodeGroup(t, m, NodeGroupRow{ID: 14, UUID: "b0000000-0000-4000-8000-000000000002", Cluster: ClusterHeat, Project: b,
		Name: "default-worker", Role: "worker", Count: 3, Min: 0, IsDefault: true})
}
