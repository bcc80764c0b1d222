package compiler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
	"github.com/openkeel/keel/intent"
)

// After a credential rotation (facts' credential_generation N > 0) every
// workload of the cloud-provider payload (the cloud controller manager and
// the Cinder and Manila CSI drivers: they read cloud.conf only when they
// start) carries N on its pod template, so that the ClusterResourceSet's
// re-apply rolls them onto the new credential; before any rotation none
// carries it, so the manifests of clusters never rotated are unchanged.
func TestCredentialGenerationRestartsCloudProvider(t *testing.T) {
	for _, gen := range []int64{0, 1, 2} {
		in := secretsInput(t)
		in.Facts.CredentialGeneration = gen
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(compileDoc(t, in, "configmap-cloud-provider.yaml"), &cm); err != nil {
			t.Fatal(err)
		}
		var seen []string
		for file, payload := range cm.Data {
			objs, err := addons.Decode(payload)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				if !slices.Contains([]string{"Deployment", "DaemonSet", "StatefulSet"}, o.GetKind()) {
					continue
				}
				seen = append(seen, file+" "+o.GetKind())
				ann, _, _ := unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "annotations")
				got := ann[intent.AnnotationCredentialGeneration]
				want := []string{"", "1", "2"}[gen]
				if got != want {
					t.Errorf("generation %d: %s %s %s: annotation %q, want %q", gen, file, o.GetKind(), o.GetName(), got, want)
				}
			}
		}
		slices.Sort(seen)
		if len(seen) < 5 {
			t.Fatalf("only %v among the payload's workloads", seen)
		}
	}
}

// compileDoc compiles in and returns the document at p.
func compileDoc(t *testing.T, in Input, p string) []byte {
	t.Helper()
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Path == p {
			return d.Bytes()
		}
	}
	t.Fatalf("no %s", p)
	return nil
}
