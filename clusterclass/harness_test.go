package clusterclass

// The feature tests' harness: each test sets topology variables on a Cluster
// of keel's ClusterClass, lets Cluster API's desired-state generator (and its
// inline patch engine) compute the KubeadmControlPlane, MachineDeployments and
// templates, and asserts concrete fields of the result.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/clusterclass/desired"
)

const testClass = "magnum-test"

var testClassOnce = sync.OnceValues(func() (*desired.Class, error) {
	objs, err := Objects(testClass)
	if err != nil {
		return nil, err
	}
	return desired.NewClass(objs)
})

// requiredVars are the variables without a default.
func requiredVars() map[string]any {
	return map[string]any{
		VarClusterIdentityRefName: "kube-abcde-cloud-config",
		VarControlPlaneFlavor:     "m1.large",
		VarFlavor:                 "m1.medium",
		VarImageUUID:              "5b9c0e1c-1a1f-4b7e-9e38-1f2a5c9e0d11",
	}
}

// tc is a test cluster: variables, Kubernetes version and nodegroups with
// their overrides.
type tc struct {
	vars      map[string]any
	version   string
	overrides map[string]map[string]any // nodegroup → variable overrides
}

func clusterVar(name string, v any) clusterv1.ClusterVariable {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return clusterv1.ClusterVariable{Name: name, Value: apiextensionsv1.JSON{Raw: b}}
}

func sortedVars(m map[string]any) []clusterv1.ClusterVariable {
	var out []clusterv1.ClusterVariable
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, clusterVar(k, m[k]))
	}
	return out
}

func (c tc) cluster() *clusterv1.Cluster {
	vars := requiredVars()
	for k, v := range c.vars {
		vars[k] = v
	}
	version := c.version
	if version == "" {
		version = "v1.33.1"
	}
	three, two := int32(3), int32(2)
	cl := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-abcde", Namespace: "magnum-system"},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			Topology: clusterv1.Topology{
				ClassRef:     clusterv1.ClusterClassRef{Name: testClass},
				Version:      version,
				ControlPlane: clusterv1.ControlPlaneTopology{Replicas: &three},
				Variables:    sortedVars(vars),
			},
		},
	}
	ngs := []string{"default-worker"}
	for name := range c.overrides {
		if name != "default-worker" {
			ngs = append(ngs, name)
		}
	}
	for _, name := range ngs {
		md := clusterv1.MachineDeploymentTopology{Class: WorkerClass, Name: name, Replicas: &two}
		md.Variables.Overrides = sortedVars(c.overrides[name])
		cl.Spec.Topology.Workers.MachineDeployments = append(cl.Spec.Topology.Workers.MachineDeployments, md)
	}
	return cl
}

// generate computes the desired state of the test cluster.
func generate(t *testing.T, c tc) *desired.State {
	t.Helper()
	class, err := testClassOnce()
	if err != nil {
		t.Fatal(err)
	}
	st, err := class.Generate(context.Background(), c.cluster())
	if err != nil {
		t.Fatalf("desired state: %v", err)
	}
	return st
}

// generateErr returns the generator's (or webhook's) error.
func generateErr(c tc) error {
	class, err := testClassOnce()
	if err != nil {
		return err
	}
	_, err = class.Generate(context.Background(), c.cluster())
	return err
}

// Accessors of the generated objects.

func kcp(st *desired.State) *unstructured.Unstructured { return st.ControlPlane.Object }
func cpMachines(st *desired.State) *unstructured.Unstructured {
	return st.ControlPlane.InfrastructureMachineTemplate
}
func osc(st *desired.State) *unstructured.Unstructured { return st.InfrastructureCluster }

func md(t *testing.T, st *desired.State, name string) (bootstrap, machines *unstructured.Unstructured) {
	t.Helper()
	m, ok := st.MachineDeployments[name]
	if !ok {
		t.Fatalf("no MachineDeployment %s in the desired state", name)
	}
	return m.BootstrapTemplate, m.InfrastructureMachineTemplate
}

// get reads a dotted path (list indexes as numbers) from an object.
func get(t *testing.T, u *unstructured.Unstructured, path string) any {
	t.Helper()
	v, ok := lookup(u.Object, path)
	if !ok {
		t.Fatalf("%s %s: no field %s", u.GetKind(), u.GetName(), path)
	}
	return v
}

func lookup(obj any, path string) (any, bool) {
	cur := obj
	for _, p := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// equal asserts a field's value; numbers are compared as JSON.
func equal(t *testing.T, u *unstructured.Unstructured, path string, want any) {
	t.Helper()
	got := get(t, u, path)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	var g, w any
	_ = json.Unmarshal(gb, &g)
	_ = json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s %s: %s = %s, want %s", u.GetKind(), u.GetName(), path, gb, wb)
	}
}

func absent(t *testing.T, u *unstructured.Unstructured, path string) {
	t.Helper()
	if v, ok := lookup(u.Object, path); ok {
		t.Errorf("%s %s: %s = %v, want it absent", u.GetKind(), u.GetName(), path, v)
	}
}

// args returns a v1beta2 extraArgs list as a map, failing on duplicates
// (the CRD rejects them).
func args(t *testing.T, u *unstructured.Unstructured, path string) map[string]string {
	t.Helper()
	v, ok := lookup(u.Object, path)
	if !ok {
		return map[string]string{}
	}
	out := map[string]string{}
	for _, a := range v.([]any) {
		m := a.(map[string]any)
		name, _ := m["name"].(string)
		if _, dup := out[name]; dup {
			t.Errorf("%s %s: %s has %s twice", u.GetKind(), u.GetName(), path, name)
		}
		out[name], _ = m["value"].(string)
	}
	return out
}

const (
	apiServerArgs = "spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs"
	kcpInitArgs   = "spec.kubeadmConfigSpec.initConfiguration.nodeRegistration.kubeletExtraArgs"
	kcpJoinArgs   = "spec.kubeadmConfigSpec.joinConfiguration.nodeRegistration.kubeletExtraArgs"
	kctJoinArgs   = "spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs"
	kcpFiles      = "spec.kubeadmConfigSpec.files"
	kctFiles      = "spec.template.spec.files"
)

// filePaths lists the paths of a files list.
func filePaths(t *testing.T, u *unstructured.Unstructured, path string) []string {
	t.Helper()
	v, ok := lookup(u.Object, path)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range v.([]any) {
		out = append(out, f.(map[string]any)["path"].(string))
	}
	return out
}

// fileContent returns the base64 content of the file at path.
func fileContent(t *testing.T, u *unstructured.Unstructured, listPath, file string) string {
	t.Helper()
	v, _ := lookup(u.Object, listPath)
	list, _ := v.([]any)
	for _, f := range list {
		m := f.(map[string]any)
		if m["path"] == file {
			return m["content"].(string)
		}
	}
	t.Fatalf("%s %s: no file %s in %s", u.GetKind(), u.GetName(), file, listPath)
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func strings_(t *testing.T, u *unstructured.Unstructured, path string) []string {
	t.Helper()
	v, ok := lookup(u.Object, path)
	if !ok {
		return nil
	}
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
