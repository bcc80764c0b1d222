package clusterapi_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// demoIntent is a small Magnum cluster (3 masters on m1.large, 2 workers on
// m1.medium, Kubernetes v1.33.1) on the magnum-v0.1.0 ClusterClass, with
// the OpenStack facts the API records (CAPO's CRDs want IDs as UUIDs).
const demoIntent = `apiVersion: keel.openkeel.io/v1alpha1
kind: ClusterTemplate
id: 1
uuid: 0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1
name: k8s-1.33
project_id: p1
user_id: u1
coe: kubernetes
image_id: ubuntu-2204-kube-v1.33.1
flavor_id: m1.medium
master_flavor_id: m1.large
external_network_id: public
network_driver: calico
cluster_distro: ubuntu
master_lb_enabled: true
labels:
  kube_tag: v1.33.1
server_type: vm
created_at: 2026-01-02T03:04:05Z
---
apiVersion: keel.openkeel.io/v1alpha1
kind: Cluster
id: 1
uuid: 6b1f3c6e-9f0e-4d7a-8c55-0a9b8c7d6e5f
name: demo
project_id: p1
user_id: u1
cluster_template_id: 0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1
keypair: ops
labels:
  kube_tag: v1.33.1
create_timeout: 60
master_lb_enabled: true
stack_id: kube-ab12c
cluster_class: magnum-v0.1.0
created_at: 2026-01-02T03:04:05Z
---
apiVersion: keel.openkeel.io/v1alpha1
kind: NodeGroup
id: 1
uuid: 11111111-2222-4333-8444-555555555551
name: default-master
cluster_id: 6b1f3c6e-9f0e-4d7a-8c55-0a9b8c7d6e5f
project_id: p1
role: master
is_default: true
node_count: 3
min_node_count: 1
flavor_id: m1.large
image_id: ubuntu-2204-kube-v1.33.1
created_at: 2026-01-02T03:04:05Z
---
apiVersion: keel.openkeel.io/v1alpha1
kind: NodeGroup
id: 2
uuid: 11111111-2222-4333-8444-555555555552
name: default-worker
cluster_id: 6b1f3c6e-9f0e-4d7a-8c55-0a9b8c7d6e5f
project_id: p1
role: worker
is_default: true
node_count: 2
min_node_count: 1
flavor_id: m1.medium
image_id: ubuntu-2204-kube-v1.33.1
created_at: 2026-01-02T03:04:05Z
---
apiVersion: keel.openkeel.io/v1alpha1
kind: Facts
flavor_names:
  m1.medium: m1.medium
  m1.large: m1.large
image_uuids:
  ubuntu-2204-kube-v1.33.1: 3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b
external_network_id: 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
server_group_ids:
  default-master: 2c9d1e3f-0000-4000-8000-00000000c001
  default-worker: 2c9d1e3f-0000-4000-8000-00000000a001
`

// demoClusterName is the CAPI Cluster demoIntent renders (its stack_id).
const demoClusterName = "kube-ab12c"

// renderDemo compiles demoIntent and its ClusterClass as keel commits them.
func renderDemo(t *testing.T) (class, cluster []*unstructured.Unstructured) {
	t.Helper()
	d, err := intent.ParseDocuments([]byte(demoIntent))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := compiler.Compile(compiler.Input{Documents: *d})
	if err != nil {
		t.Fatal(err)
	}
	classDocs, err := compiler.ClusterClass(d.Cluster.ClusterClass)
	if err != nil {
		t.Fatal(err)
	}
	return objects(t, classDocs), objects(t, docs)
}

func objects(t *testing.T, docs []compiler.Document) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, d := range docs {
		if d.Path == compiler.KustomizationFile {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(d.Bytes(), &u.Object); err != nil {
			t.Fatalf("%s: %v", d.Path, err)
		}
		if u.GetNamespace() == "" && u.GetKind() != "Namespace" {
			u.SetNamespace(kube.Namespace)
		}
		out = append(out, u)
	}
	return out
}

// apply server-side applies objects as keel's reconciler does (field
// manager keel, forced).
func apply(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, u := range objs {
		if err := env.Client.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// eventually polls cond every 200 ms until it returns nil or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %v", what, timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
