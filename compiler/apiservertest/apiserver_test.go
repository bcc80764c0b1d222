package apiservertest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/clusterclass/desired"
	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

func inputs(t *testing.T) map[string]compiler.Input {
	t.Helper()
	files, err := filepath.Glob("../testdata/*.input.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	out := map[string]compiler.Input{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := intent.ParseDocuments(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".input.yaml")] = compiler.Input{Documents: *d}
	}
	return out
}

// dryRun submits every object of a rendered document (a YAML stream: the
// cluster-autoscaler's file holds four) to the API server without
// persisting it: the CRD's OpenAPI schema and CEL rules apply.
func dryRun(t *testing.T, what string, data []byte) {
	t.Helper()
	objs, err := addons.Decode(string(data))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(objs) == 0 {
		t.Fatalf("%s: no object", what)
	}
	for _, u := range objs {
		dryRunObject(t, what, u)
	}
}

func dryRunObject(t *testing.T, what string, u *unstructured.Unstructured) {
	t.Helper()
	u = u.DeepCopy()
	u.SetResourceVersion("")
	// Cluster API points templates at the Cluster by UID, which only a
	// stored Cluster has.
	u.SetOwnerReferences(nil)
	if err := env.Client.Create(context.Background(), u, client.DryRunAll); err != nil {
		t.Errorf("%s (%s %s) rejected: %v", what, u.GetKind(), u.GetName(), err)
	}
}

// The shared ClusterClass and its four templates are accepted.
func TestClusterClassAccepted(t *testing.T) {
	docs, err := compiler.ClusterClass("magnum-v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Path != compiler.KustomizationFile {
			dryRun(t, d.Path, d.Bytes())
		}
	}
}

// Every rendered document of every realistic cluster is accepted (Secrets,
// when the input carries secret material, included).
func TestRenderedClustersAccepted(t *testing.T) {
	for name, in := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			docs, err := compiler.Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				if d.Path != compiler.KustomizationFile {
					dryRun(t, d.Path, d.Bytes())
				}
			}
		})
	}
}

// What Cluster API derives from each cluster (the OpenStackCluster, the
// KubeadmControlPlane, the MachineDeployments and every machine and
// bootstrap template, patches applied) is accepted too: this is where a
// patch producing a duplicate extraArg, an empty list or a wrong type would
// show.
func TestDesiredStateAccepted(t *testing.T) {
	objs, err := clusterclass.Objects("magnum-v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	class, err := desired.NewClass(objs)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			docs, err := compiler.Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			cl := &clusterv1.Cluster{}
			for _, d := range docs {
				if d.Path == "cluster.yaml" {
					if err := yaml.Unmarshal(d.Bytes(), cl); err != nil {
						t.Fatal(err)
					}
				}
			}
			st, err := class.Generate(context.Background(), cl)
			if err != nil {
				t.Fatal(err)
			}
			dryRunObject(t, "OpenStackCluster", st.InfrastructureCluster)
			dryRunObject(t, "KubeadmControlPlane", st.ControlPlane.Object)
			dryRunObject(t, "control-plane OpenStackMachineTemplate", st.ControlPlane.InfrastructureMachineTemplate)
			names := make([]string, 0, len(st.MachineDeployments))
			for n := range st.MachineDeployments {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				md := st.MachineDeployments[n]
				dryRunObject(t, n+" KubeadmConfigTemplate", md.BootstrapTemplate)
				dryRunObject(t, n+" OpenStackMachineTemplate", md.InfrastructureMachineTemplate)
				m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(md.Object)
				if err != nil {
					t.Fatal(err)
				}
				u := &unstructured.Unstructured{Object: m}
				u.SetAPIVersion(clusterv1.GroupVersion.String())
				u.SetKind("MachineDeployment")
				dryRunObject(t, n+" MachineDeployment", u)
			}
		})
	}
}
