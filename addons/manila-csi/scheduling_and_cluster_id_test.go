package manilacsi

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// As in the reference, the node plugin runs on every node whatever its
// taints and the controller may run on control-plane nodes; both plugins
// are given the cluster's UUID (--cluster-id), which tags the shares they
// create.
func TestSchedulingAndClusterID(t *testing.T) {
	const uuid = "5d12f6fd-a196-4bf0-ae4c-1f639a523a52"
	objs := render(t, Params{ClusterUUID: uuid, Tag: "v1.32.0", Sidecars: sidecars})
	for _, c := range []struct {
		kind string
		keys []string // toleration keys; "" tolerates everything
	}{
		{"DaemonSet", []string{""}},
		{"StatefulSet", []string{"node-role.kubernetes.io/master", "node-role.kubernetes.io/control-plane"}},
	} {
		w := find(objs, c.kind)
		if len(w) != 1 {
			t.Fatalf("%d %ss", len(w), c.kind)
		}
		tol, _, _ := unstructured.NestedSlice(w[0].Object, "spec", "template", "spec", "tolerations")
		var keys []string
		for _, x := range tol {
			x := x.(map[string]any)
			k, _ := x["key"].(string)
			if k == "" && x["operator"] != "Exists" {
				t.Errorf("%s: toleration %v", c.kind, x)
			}
			keys = append(keys, k)
		}
		if strings.Join(keys, ",") != strings.Join(c.keys, ",") {
			t.Errorf("%s: tolerations %v, want keys %q", c.kind, tol, c.keys)
		}
		cs, _, _ := unstructured.NestedSlice(w[0].Object, "spec", "template", "spec", "containers")
		found := false
		for _, x := range cs {
			x := x.(map[string]any)
			if x["name"] != "nfs-nodeplugin" {
				continue
			}
			cmd, _, _ := unstructured.NestedStringSlice(x, "command")
			found = strings.Contains(strings.Join(cmd, " "), `--cluster-id="`+uuid+`"`)
		}
		if !found {
			t.Errorf("%s: the plugin is not given --cluster-id %s", c.kind, uuid)
		}
	}
}
