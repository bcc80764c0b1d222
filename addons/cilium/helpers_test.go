package cilium

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// params are the schema's defaults for a cluster without Cilium labels.
func params() Params {
	return Params{Tag: "v1.15.3", IPv4Pool: "10.100.0.0/16"}
}

func render(t *testing.T, p Params) []*unstructured.Unstructured {
	t.Helper()
	objs, err := Manifests(p)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// containerImages are the images of every container and init container of
// the workloads in objs, by "<kind>/<name>/<container>".
func containerImages(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		spec, ok, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
		if !ok {
			continue
		}
		for _, field := range []string{"initContainers", "containers"} {
			cs, _, _ := unstructured.NestedSlice(spec, field)
			for _, c := range cs {
				m := c.(map[string]any)
				out[o.GetKind()+"/"+o.GetName()+"/"+m["name"].(string)] = m["image"].(string)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no container images rendered")
	}
	return out
}

func config(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	cm := find(objs, "ConfigMap", "cilium-config")
	if cm == nil {
		t.Fatal("no cilium-config ConfigMap")
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	return data
}
