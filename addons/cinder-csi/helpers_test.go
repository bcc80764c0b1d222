package cindercsi

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/addons"
)

var sidecars = addons.CSISidecars{
	Attacher: "v4.7.0", Provisioner: "v5.1.0", Snapshotter: "v8.1.0",
	Resizer: "v1.12.0", LivenessProbe: "v2.14.0", NodeDriverRegistrar: "v2.12.0",
}

func render(t *testing.T, p Params) []*unstructured.Unstructured {
	t.Helper()
	objs, err := Manifests(p)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// images are the container images of the workloads, by workload kind and
// container name ("DaemonSet/cinder-csi-plugin").
func images(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for _, c := range cs {
			m := c.(map[string]any)
			out[o.GetKind()+"/"+m["name"].(string)] = m["image"].(string)
		}
	}
	return out
}

func find(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}
