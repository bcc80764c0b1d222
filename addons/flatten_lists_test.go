package addons

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Cluster API's ClusterResourceSet controller cannot apply `kind: List`:
// Lists (nested ones too) become their items; other objects stay as they are.
func TestFlattenLists(t *testing.T) {
	cm := func(name string) any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}}
	}
	list := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		cm("a"),
		map[string]any{"apiVersion": "v1", "kind": "ConfigMapList", "items": []any{cm("b"), cm("c")}},
	}}}
	var names []string
	for _, o := range Flatten(list) {
		if o.GetKind() != "ConfigMap" {
			t.Fatalf("kind %s left", o.GetKind())
		}
		names = append(names, o.GetName())
	}
	if len(names) != 3 || names[0] != "a" || names[1] != "b" || names[2] != "c" {
		t.Fatalf("items %v", names)
	}
	one := &unstructured.Unstructured{Object: cm("d").(map[string]any)}
	if got := Flatten(one); len(got) != 1 || got[0] != one {
		t.Fatalf("a plain object became %v", got)
	}
}
