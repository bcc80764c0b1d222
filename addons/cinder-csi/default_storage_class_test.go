package cindercsi

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The cluster's one StorageClass is its default: block-<type> of the volume
// type its root volumes use (boot_volume_type, named as the reference
// names it), or block-default of Cinder's default type (no type
// parameter), deleting volumes with their claims and expandable.
func TestDefaultStorageClass(t *testing.T) {
	for _, c := range []struct {
		volumeType, name, typeParam string
	}{
		{"", "block-default", ""},
		{"__DEFAULT__", "block-default", ""},
		{"ssd", "block-ssd", "ssd"},
		{"Fast SSD_2", "block-fast-ssd-2", "Fast SSD_2"},
		{"_ssd.", "block-ssd", "_ssd."},
	} {
		scs := find(render(t, Params{ClusterUUID: "u", Tag: "v1.32.0", Sidecars: sidecars, VolumeType: c.volumeType}), "StorageClass")
		if len(scs) != 1 {
			t.Fatalf("%q: %d StorageClasses, want 1", c.volumeType, len(scs))
		}
		sc := scs[0]
		typ, hasType, _ := unstructured.NestedString(sc.Object, "parameters", "type")
		expand, _, _ := unstructured.NestedBool(sc.Object, "allowVolumeExpansion")
		if sc.GetName() != c.name || typ != c.typeParam || hasType != (c.typeParam != "") {
			t.Errorf("%q: StorageClass %s type %q, want %s type %q", c.volumeType, sc.GetName(), typ, c.name, c.typeParam)
		}
		if sc.GetAnnotations()[DefaultClassAnnotation] != "true" || sc.Object["provisioner"] != Provisioner ||
			sc.Object["reclaimPolicy"] != "Delete" || sc.Object["volumeBindingMode"] != "Immediate" || !expand {
			t.Errorf("%q: StorageClass %v", c.volumeType, sc.Object)
		}
	}
}
