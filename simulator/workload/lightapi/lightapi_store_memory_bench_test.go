package lightapi

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// BenchmarkStoreMemory reports the heap a workload cluster's store costs
// (bytes/cluster) with what Cluster API puts in one: three Nodes, static
// Pods, kubeadm's ConfigMaps, CoreDNS, RBAC, a bootstrap token, and an
// addon CRD of some 300 KB that every cluster receives.
//
//	go test -run XXX -bench StoreMemory -benchtime 10x ./simulator/workload/lightapi/
func BenchmarkStoreMemory(b *testing.B) {
	objs := clusterObjects(b)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var fleet []*Store
	for i := 0; i < b.N; i++ {
		for j := 0; j < 100; j++ {
			fleet = append(fleet, fill(b, objs))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(fleet)), "bytes/cluster")
	b.ReportMetric(float64(len(objs)), "objects/cluster")
	runtime.KeepAlive(fleet)
}

func fill(b *testing.B, objs []benchObject) *Store {
	s := NewStore()
	for _, o := range objs {
		u, err := decodeJSON(o.json)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.create(builtinByGR[o.gr], u, false); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

type benchObject struct {
	gr   string
	json []byte
}

func clusterObjects(b *testing.B) []benchObject {
	var out []benchObject
	add := func(gr string, o any, gvk schema.GroupVersionKind) {
		data, err := json.Marshal(o)
		if err != nil {
			b.Fatal(err)
		}
		u, _ := decodeJSON(data)
		u.SetGroupVersionKind(gvk)
		data, _ = u.MarshalJSON()
		out = append(out, benchObject{gr, data})
	}
	v1 := func(k string) schema.GroupVersionKind { return corev1.SchemeGroupVersion.WithKind(k) }
	add(crdGR, largeCRD(), apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	for i := 0; i < 3; i++ {
		add("/nodes", benchNode(fmt.Sprintf("cluster-md-%d", i)), v1("Node"))
	}
	for _, c := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		add("/pods", staticPod(c), v1("Pod"))
	}
	for _, n := range []string{"kubeadm-config", "kubelet-config", "coredns", "kube-proxy"} {
		add("/configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "kube-system"},
			Data: map[string]string{"config": strings.Repeat("apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n", 20)}}, v1("ConfigMap"))
	}
	add("apps/deployments", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Namespace: "kube-system"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "coredns", Image: "registry.k8s.io/coredns/coredns:v1.12.0"}}}}}},
		appsv1.SchemeGroupVersion.WithKind("Deployment"))
	add("rbac.authorization.k8s.io/roles", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm:nodes-kubeadm-config", Namespace: "kube-system"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}, rbacv1.SchemeGroupVersion.WithKind("Role"))
	add("/secrets", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-abcdef", Namespace: "kube-system"}, Type: "bootstrap.kubernetes.io/token",
		StringData: map[string]string{"token-id": "abcdef", "token-secret": "0123456789abcdef"}}, v1("Secret"))
	return out
}

func largeCRD() *apiextensionsv1.CustomResourceDefinition {
	props := map[string]apiextensionsv1.JSONSchemaProps{}
	for i := 0; i < 1500; i++ {
		props[fmt.Sprintf("field%d", i)] = apiextensionsv1.JSONSchemaProps{Type: "string",
			Description: "A field of the addon's configuration, described at the length generated CRDs describe theirs, which is long."}
	}
	crd := widgetCRD()
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: props}}
	return crd
}

func benchNode(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
		Spec: corev1.NodeSpec{ProviderID: "openstack:///" + name},
		Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": kresource.MustParse("4"), "memory": kresource.MustParse("8Gi")},
			Conditions: []corev1.NodeCondition{{Type: "Ready", Status: "True", Reason: "KubeletReady", Message: "kubelet is posting ready status"}},
			Addresses:  []corev1.NodeAddress{{Type: "InternalIP", Address: "10.0.0.1"}, {Type: "Hostname", Address: name}},
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.34.0", OSImage: "Ubuntu 24.04", ContainerRuntimeVersion: "containerd://2.0.0"}}}
}

func staticPod(component string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: component + "-cluster-cp-0", Namespace: "kube-system",
		Labels: map[string]string{"component": component, "tier": "control-plane"}},
		Spec: corev1.PodSpec{NodeName: "cluster-cp-0", Containers: []corev1.Container{{Name: component, Image: "registry.k8s.io/" + component + ":v1.34.0",
			Command: []string{component, "--flag-a=1", "--flag-b=2", "--flag-c=3"}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: "Ready", Status: "True"}}}}
}
