package magnumimport_test

import (
	"encoding/json"
	"testing"
)

// The rows below are what Magnum's API (templates, quotas) and conductor
// (clusters, nodegroups) write: the column set of the migrated schema,
// labels as the JSON text Magnum's JSONEncodedDict stores, naive UTC
// timestamps as oslo.db writes them.

const (
	projectA = "5f3c0e1a2b3c4d5e6f708192a3b4c5d6"
	projectB = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	userA    = "8a1e2b3c4d5e6f708192a3b4c5d6e7f8"

	tmplCAPI = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	tmplHeat = "6b1d0f0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b"

	clusterCAPI = "e1c2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7"
	clusterHeat = "f0e1d2c3-b4a5-4968-8778-695a4b3c2d1e"
	heatStack   = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"
)

func labelsJSON(m map[string]string) string {
	b, _ := json.Marshal(m)
	return string(b)
}

type templateRow struct {
	id                                 int
	uuid, project, name, distro, netDr string
	labels                             map[string]string
	public, hidden                     bool
}

func insertTemplate(t testing.TB, m magnumDB, r templateRow) {
	m.exec(t, `INSERT INTO cluster_template (id, uuid, project_id, user_id, name, image_id, flavor_id, master_flavor_id,
		keypair_id, external_network_id, fixed_network, fixed_subnet, network_driver, volume_driver, dns_nameserver,
		apiserver_port, docker_volume_size, docker_storage_driver, cluster_distro, coe, http_proxy, https_proxy, no_proxy,
		registry_enabled, labels, tls_disabled, public, server_type, insecure_registry, master_lb_enabled,
		floating_ip_enabled, hidden, tags, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.id, r.uuid, r.project, userA, r.name, r.distro+"-image", "m1.medium", "m1.large",
		"ops-key", "public", nil, nil, r.netDr, "cinder", "8.8.8.8",
		nil, 20, nil, r.distro, "kubernetes", nil, nil, nil,
		false, labelsJSON(r.labels), false, r.public, "vm", nil, true,
		true, r.hidden, nil, "2026-01-02 03:04:05", nil)
}

type clusterRow struct {
	id                                      int
	uuid, project, name, tmpl, stack, state string
	reason                                  string
	labels                                  map[string]string
}

func insertCluster(t testing.TB, m magnumDB, r clusterRow) {
	m.exec(t, `INSERT INTO cluster (id, project_id, user_id, uuid, name, cluster_template_id, keypair, docker_volume_size,
		labels, master_flavor_id, flavor_id, stack_id, api_address, status, status_reason, health_status,
		health_status_reason, create_timeout, discovery_url, trust_id, trustee_username, trustee_user_id,
		trustee_password, coe_version, container_version, ca_cert_ref, magnum_cert_ref, etcd_ca_cert_ref,
		front_proxy_ca_cert_ref, fixed_network, fixed_subnet, floating_ip_enabled, master_lb_enabled, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.id, r.project, userA, r.uuid, r.name, r.tmpl, "ops-key", 20,
		labelsJSON(r.labels), "m1.large", "m1.medium", r.stack, "https://203.0.113.10:6443", r.state, r.reason, "HEALTHY",
		`{"api": "ok"}`, 60, nil, "trust-1", "trustee", "tu-1",
		"secret-not-imported", "v1.32.4", "1.0.0", "ca-ref", "magnum-ref", "etcd-ref",
		"proxy-ref", nil, nil, true, false, "2026-01-03 04:05:06", "2026-01-04 05:06:07")
}

type nodeGroupRow struct {
	id                           int
	uuid, cluster, project, name string
	role                         string
	count, min                   int
	max                          any
	isDefault                    bool
	labels                       map[string]string
}

func insertNodeGroup(t testing.TB, m magnumDB, r nodeGroupRow) {
	m.exec(t, `INSERT INTO nodegroup (id, uuid, name, cluster_id, project_id, docker_volume_size, labels, flavor_id, image_id,
		node_addresses, node_count, role, max_node_count, min_node_count, is_default, stack_id, status, status_reason,
		version, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.id, r.uuid, r.name, r.cluster, r.project, 20, labelsJSON(r.labels), "m1.medium", "ubuntu-image",
		`["10.0.0.5"]`, r.count, r.role, r.max, r.min, r.isDefault, "kube-ab12c", "CREATE_COMPLETE", nil,
		"v1.32.4", "2026-01-03 04:05:06", nil)
}

func insertQuota(t testing.TB, m magnumDB, id int, project string, limit int) {
	m.exec(t, `INSERT INTO quotas (id, project_id, resource, hard_limit, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, project, "Cluster", limit, "2026-01-01 00:00:00", nil)
}

// fillStandard writes the standard cloud: project A has a Cluster API
// template (its container_infra_prefix with the Heat convention's
// trailing slash), a cluster on it and a quota; project B has a Heat-era
// template and a Heat cluster.
func fillStandard(t testing.TB, m magnumDB) {
	insertTemplate(t, m, templateRow{id: 1, uuid: tmplCAPI, project: projectA, name: "k8s-v1.32", distro: "ubuntu", netDr: "calico",
		labels: map[string]string{"kube_tag": "v1.32.4", "container_infra_prefix": "registry.example.com/mirror/"}, public: true})
	insertTemplate(t, m, templateRow{id: 2, uuid: tmplHeat, project: projectB, name: "fcos-heat", distro: "fedora-coreos", netDr: "flannel",
		labels: map[string]string{"kube_tag": "v1.21.11"}, hidden: true})
	insertCluster(t, m, clusterRow{id: 7, uuid: clusterCAPI, project: projectA, name: "prod-a", tmpl: tmplCAPI, stack: "kube-ab12c",
		state: "CREATE_COMPLETE", labels: map[string]string{"kube_tag": "v1.32.4"}})
	insertNodeGroup(t, m, nodeGroupRow{id: 11, uuid: "a0000000-0000-4000-8000-000000000001", cluster: clusterCAPI, project: projectA,
		name: "default-master", role: "master", count: 1, min: 1, isDefault: true})
	insertNodeGroup(t, m, nodeGroupRow{id: 12, uuid: "a0000000-0000-4000-8000-000000000002", cluster: clusterCAPI, project: projectA,
		name: "default-worker", role: "worker", count: 2, min: 1, max: 5, isDefault: true})
	insertCluster(t, m, clusterRow{id: 8, uuid: clusterHeat, project: projectB, name: "legacy", tmpl: tmplHeat, stack: heatStack,
		state: "UPDATE_COMPLETE", reason: "Stack UPDATE completed successfully"})
	insertNodeGroup(t, m, nodeGroupRow{id: 13, uuid: "b0000000-0000-4000-8000-000000000001", cluster: clusterHeat, project: projectB,
		name: "default-master", role: "master", count: 1, min: 1, isDefault: true})
	insertNodeGroup(t, m, nodeGroupRow{id: 14, uuid: "b0000000-0000-4000-8000-000000000002", cluster: clusterHeat, project: projectB,
		name: "default-worker", role: "worker", count: 3, min: 0, isDefault: true})
	insertQuota(t, m, 1, projectA, 10)
}
