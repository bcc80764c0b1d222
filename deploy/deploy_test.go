package deploy_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.yaml")

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// The kustomizations the repository ships, by golden-file name.
var kustomizations = map[string]string{
	"base":       "base",
	"production": "overlays/production",
	"dev":        "overlays/dev",
}

// Each kustomization renders exactly its golden file (reviewed in diffs;
// regenerate with go test ./deploy -update), and the API server accepts
// every object it renders: a server-side apply dry run (unknown or
// misplaced fields, bad values are refused), plus each Deployment's Pod
// created (dry run) in a namespace that enforces the "restricted" Pod
// Security level, as magnum-system does.
func TestManifestsRenderAndAreAccepted(t *testing.T) {
	restricted := restrictedNamespace(t)
	for name, dir := range kustomizations {
		t.Run(name, func(t *testing.T) {
			objs, rendered := render(t, dir)
			golden(t, name, rendered)
			for _, u := range objs {
				applyDryRun(t, u)
				if u.GetKind() == "Deployment" {
					createPodDryRun(t, u, restricted)
				}
			}
		})
	}
}

// render runs kustomize in-process, as kubectl apply -k does.
func render(t *testing.T, dir string) ([]*unstructured.Unstructured, []byte) {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	res, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range res.Resources() {
		// Through JSON: kyaml's maps hold Go ints, which unstructured
		// objects cannot deep-copy.
		y, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(y)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(j); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
	}
	if len(objs) == 0 {
		t.Fatalf("%s renders nothing", dir)
	}
	return objs, out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden.yaml")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./deploy -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s renders differently from %s (run go test ./deploy -update and review the diff)", name, path)
	}
}

func applyDryRun(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	err := env.Client.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u.DeepCopy()),
		client.FieldOwner("keel-deploy-test"), client.ForceOwnership, client.DryRunAll)
	if err != nil {
		t.Errorf("%s %s/%s rejected: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
}

// restrictedNamespace creates (for real) a namespace with magnum-system's
// Pod Security enforcement and a ServiceAccount keel, for the Pods' dry
// runs.
func restrictedNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "keel-deploy-",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	// The Pods run as ServiceAccount keel, which admission looks up.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "keel", Namespace: ns.Name}}
	if err := env.Client.Create(context.Background(), sa); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// createPodDryRun creates the Deployment's Pod in ns without storing it:
// Pod Security admission judges Pods, not Deployments.
func createPodDryRun(t *testing.T, u *unstructured.Unstructured, ns string) {
	t.Helper()
	var d appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &d); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: ns, Labels: d.Spec.Template.Labels},
		Spec:       d.Spec.Template.Spec,
	}
	if err := env.Client.Create(context.Background(), pod, client.DryRunAll); err != nil {
		t.Errorf("the Pod of Deployment %s is refused under Pod Security restricted: %v", d.Name, err)
	}
}
