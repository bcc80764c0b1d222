package restapi

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
)

func TestResize(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "prod-a", tm.UUID, 3)
	n := 5
	got, err := clusters.Resize(context.Background(), a.client(member, "1.7"), id, clusters.ResizeOpts{NodeCount: &n}).Extract()
	if err != nil || got != id {
		t.Fatalf("resize: %q %v", got, err)
	}
	if msg := a.lastCommit(); !strings.HasPrefix(msg, "cluster prod-a: resize default-worker 3 → 5\n") || !strings.Contains(msg, "Keel-Operation: resize") {
		t.Fatalf("commit:\n%s", msg)
	}
	// Shrinking with nodes_to_remove records them for the reconciler.
	n = 3
	if _, err := clusters.Resize(context.Background(), a.client(member, "1.10"), id, clusters.ResizeOpts{
		NodeCount: &n, NodesToRemove: []string{"prod-a-node-1", "prod-a-node-4"}, NodeGroup: "default-worker",
	}).Extract(); err != nil {
		t.Fatal(err)
	}
	ng := nodeGroupNamed(a.loadState(id), "default-worker")
	if ng.NodeCount != 3 || !reflect.DeepEqual(ng.NodesToRemove, []string{"prod-a-node-1", "prod-a-node-4"}) {
		t.Fatalf("nodegroup after shrink: count %d remove %v", ng.NodeCount, ng.NodesToRemove)
	}
	// The control plane resizes to odd sizes (with a load balancer).
	r := a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 3, "nodegroup": "default-master"}`)
	expectError(t, r, 400, "master_count must be 1 when master_lb_enabled is False")
	// Resizing to the current count commits nothing.
	a.expectNoCommit(func() {
		if r := a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 3}`); r.status != 202 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}

func TestResizeErrors(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "c1", tm.UUID, 2)
	if r := a.do(member, "1.10", "PATCH", "/v1/clusters/c1/nodegroups/default-worker", `[{"op":"replace","path":"/max_node_count","value":4}]`); r.status != 409 {
		// default-worker has no api_address yet; set bounds through Git
		// instead below.
		_ = r
	}
	a.complete(id)
	if r := a.do(member, "1.10", "PATCH", "/v1/clusters/c1/nodegroups/default-worker", `[{"op":"replace","path":"/max_node_count","value":4},{"op":"replace","path":"/min_node_count","value":1}]`); r.status != 202 {
		t.Fatalf("setting bounds: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		name, mv, body string
		who            caller
		status         int
		want           string
	}{
		{"below 1.7", "1.6", `{"node_count": 3}`, member, 406, "the requested API resize is not supported"},
		{"above max", "1.10", `{"node_count": 5}`, member, 400, "Resizing default-worker outside the allowed range: min_node_count = 1, max_node_count = 4"},
		{"below min", "1.10", `{"node_count": 0}`, member, 400, "outside the allowed range"},
		{"zero below 1.10", "1.9", `{"node_count": 0, "nodegroup": "default-master"}`, member, 400, "Resizing a nodegroup to zero is not supported in the provided microversion."},
		// The size rule itself is the schema's (cue_validation_before_commit_test.go).
		{"master without load balancer", "1.10", `{"node_count": 2, "nodegroup": "default-master"}`, member, 400, "master_count must be 1 when master_lb_enabled is False"},
		{"unknown nodegroup", "1.10", `{"node_count": 2, "nodegroup": "gpu"}`, member, 404, "Nodegroup gpu could not be found."},
		{"missing count", "1.10", `{"nodegroup": "default-worker"}`, member, 400, "Mandatory field missing."},
		{"unknown attribute", "1.10", `{"node_count": 2, "foo": 1}`, member, 400, "Unknown attribute for argument cluster_resize_req: foo"},
		{"too many to remove", "1.10", `{"node_count": 1, "nodes_to_remove": ["a", "b"]}`, member, 400, "nodes_to_remove names 2 nodes"},
		{"reader", "1.10", `{"node_count": 3}`, reader, 403, "cluster:resize"},
		{"other project", "1.10", `{"node_count": 3}`, member2, 404, "could not be found"},
		// Magnum resolves the cluster without all_tenants on resize.
		{"admin elsewhere", "1.10", `{"node_count": 3}`, admin, 404, "could not be found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(tc.who, tc.mv, "POST", "/v1/clusters/c1/actions/resize", tc.body), tc.status, tc.want)
			})
		})
	}
}

func TestUpgrade(t *testing.T) {
	a := newTestAPI(t)
	old := a.template(member, "v133", map[string]string{"kube_tag": "v1.33.4", "calico_tag": "v3.28.5", "gone": "x", "keep": "1"})
	next := a.template(member, "v134", map[string]string{"kube_tag": "v1.34.1", "calico_tag": "v3.30.2", "keep": "1", "new": "y"})
	skip := a.template(member, "v135", map[string]string{"kube_tag": "v1.35.0"})
	down := a.template(member, "v132", map[string]string{"kube_tag": "v1.32.9"})
	id := a.cluster(member, "prod-a", old.UUID, 2)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/upgrade", map[string]any{"cluster_template": next.UUID}), 400,
			`Upgrading a cluster when status is "CREATE_IN_PROGRESS" is not supported.`)
	})
	a.complete(id)
	for _, tc := range []struct {
		name, mv string
		body     any
		who      caller
		status   int
		want     string
	}{
		{"1.6", "1.6", map[string]any{"cluster_template": next.UUID}, member, 406, "the requested API upgrade is not supported"},
		{"1.7", "1.7", map[string]any{"cluster_template": next.UUID}, member, 400, "Cluster upgrade is not supported in the provided microversion."},
		{"skip minor", "1.8", map[string]any{"cluster_template": skip.UUID}, member, 400, "one minor version at a time"},
		{"downgrade", "1.8", map[string]any{"cluster_template": down.UUID}, member, 400, "downgrades are not supported"},
		{"unknown template", "1.8", map[string]any{"cluster_template": "nope"}, member, 404, "ClusterTemplate nope could not be found."},
		{"reader", "1.8", map[string]any{"cluster_template": next.UUID}, reader, 403, "cluster:upgrade"},
		{"other project", "1.8", map[string]any{"cluster_template": next.UUID}, member2, 404, "could not be found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(tc.who, tc.mv, "POST", "/v1/clusters/prod-a/actions/upgrade", tc.body), tc.status, tc.want)
			})
		})
	}
	batch := 1
	got, err := clusters.Upgrade(context.Background(), a.client(member, "1.8"), id, clusters.UpgradeOpts{ClusterTemplate: "v134", MaxBatchSize: &batch}).Extract()
	if err != nil || got != id {
		t.Fatalf("upgrade: %q %v", got, err)
	}
	if msg := a.lastCommit(); !strings.HasPrefix(msg, "cluster prod-a: upgrade to template v134 (kube_tag v1.33.4 → v1.34.1)") || !strings.Contains(msg, "Keel-Operation: upgrade") {
		t.Fatalf("commit:\n%s", msg)
	}
	st := a.loadState(id)
	want := map[string]string{"kube_tag": "v1.34.1", "calico_tag": "v3.30.2", "keep": "1", "new": "y"}
	if st.Cluster.ClusterTemplateID != next.UUID || !reflect.DeepEqual(st.Cluster.Labels, want) {
		t.Fatalf("cluster after upgrade: template %s labels %v", st.Cluster.ClusterTemplateID, st.Cluster.Labels)
	}
	if w := nodeGroupNamed(st, "default-worker"); !reflect.DeepEqual(w.Labels, want) {
		t.Fatalf("default-worker labels %v", w.Labels)
	}
}

// A cluster-level label override survives an upgrade that does not touch
// that label; an immutable label the new template changes is refused.
func TestUpgradeLabelRules(t *testing.T) {
	a := newTestAPI(t)
	old := a.template(member, "old", map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "20"})
	next := a.template(member, "next", map[string]string{"kube_tag": "v1.33.5", "boot_volume_size": "20"})
	imm := a.template(member, "imm", map[string]string{"kube_tag": "v1.33.5", "fixed_subnet_cidr": "10.1.0.0/24"})
	r := a.do(member, "1.10", "POST", "/v1/clusters", map[string]any{
		"name": "c1", "cluster_template_id": old.UUID, "labels": map[string]string{"boot_volume_size": "50"}, "merge_labels": true,
	})
	if r.status != 202 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	id := r.json(t)["uuid"].(string)
	a.complete(id)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/upgrade", map[string]any{"cluster_template": imm.UUID}), 400, "immutable")
	})
	if r := a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/upgrade", map[string]any{"cluster_template": next.UUID}); r.status != 202 {
		t.Fatalf("upgrade: %d %s", r.status, r.body)
	}
	if l := a.loadState(id).Cluster.Labels; l["boot_volume_size"] != "50" || l["kube_tag"] != "v1.33.5" {
		t.Fatalf("labels %v", l)
	}
}
