package capo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// intentFor is a Magnum cluster (one master, one worker, Kubernetes v1.33.1)
// named by its stack_id, as keel commits it.
func intentFor(stack string, masters, workers int) string {
	return fmt.Sprintf(`apiVersion: keel.openkeel.io/v1alpha1
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
name: %[1]s
project_id: p1
user_id: u1
cluster_template_id: 0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1
keypair: ops
labels:
  kube_tag: v1.33.1
create_timeout: 60
master_lb_enabled: true
stack_id: %[1]s
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
node_count: %[2]d
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
node_count: %[3]d
min_node_count: 1
flavor_id: m1.medium
image_id: ubuntu-2204-kube-v1.33.1
created_at: 2026-01-02T03:04:05Z
`, stack, masters, workers)
}

// applyCluster compiles a cluster and its ClusterClass and server-side
// applies them as keel's reconciler does, leaving out its
// ClusterResourceSets: no addon reaches the workload cluster.
func applyCluster(t *testing.T, stack string, masters, workers int, edit ...func(*unstructured.Unstructured)) {
	t.Helper()
	d, err := intent.ParseDocuments([]byte(intentFor(stack, masters, workers)))
	if err != nil {
		t.Fatal(err)
	}
	applyCompiled(t, compiler.Input{Documents: *d}, false, edit...)
}

// applyCompiled applies what the compiler renders for in, and the
// ClusterClass, with the ClusterResourceSets and their payloads or without;
// edit changes each object before it is applied.
func applyCompiled(t *testing.T, in compiler.Input, withAddons bool, edit ...func(*unstructured.Unstructured)) {
	t.Helper()
	docs, err := compiler.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	classDocs, err := compiler.ClusterClass(in.Cluster.ClusterClass)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append(classDocs, docs...) {
		if doc.Path == compiler.KustomizationFile {
			continue
		}
		if !withAddons && strings.HasPrefix(doc.Path, "clusterresourceset-") {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc.Bytes(), &u.Object); err != nil {
			t.Fatalf("%s: %v", doc.Path, err)
		}
		if u.GetNamespace() == "" {
			u.SetNamespace(kube.Namespace)
		}
		for _, e := range edit {
			e(u)
		}
		if err := env.Client.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// eventually polls cond until it returns nil or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			dump(t)
			t.Fatalf("%s: not after %s: %v", what, timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// dump logs the CAPI and CAPO objects of the namespace, to see where a
// cluster stopped.
func dump(t *testing.T) {
	t.Helper()
	for _, kind := range []string{"Cluster", "OpenStackCluster", "KubeadmControlPlane", "MachineDeployment", "Machine", "OpenStackMachine", "KubeadmConfig"} {
		group := "cluster.x-k8s.io/v1beta2"
		switch kind {
		case "OpenStackCluster", "OpenStackMachine":
			group = "infrastructure.cluster.x-k8s.io/v1beta1"
		case "KubeadmControlPlane":
			group = "controlplane.cluster.x-k8s.io/v1beta2"
		case "KubeadmConfig":
			group = "bootstrap.cluster.x-k8s.io/v1beta2"
		}
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(group)
		l.SetKind(kind + "List")
		if err := env.Client.List(context.Background(), l, client.InNamespace(kube.Namespace)); err != nil {
			t.Logf("%s: %v", kind, err)
			continue
		}
		for _, u := range l.Items {
			st, _ := yaml.Marshal(u.Object["status"])
			t.Logf("%s %s status:\n%s", kind, u.GetName(), st)
		}
	}
}
