package cindercsi

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Both plugins read keel's kube-system/cloud-config Secret (the chart's
// host paths are not used), mounted at /etc/kubernetes and /etc/config, and
// the controller tags volumes with the cluster's UUID and may run on
// control-plane nodes; the chart's own StorageClasses are not rendered.
func TestReadsCloudConfig(t *testing.T) {
	objs := render(t, Params{ClusterUUID: "5d12f6fd-a196-4bf0-ae4c-1f639a523a52", Tag: "v1.32.0", Sidecars: sidecars})
	for _, kind := range []string{"Deployment", "DaemonSet"} {
		w := find(objs, kind)
		if len(w) != 1 {
			t.Fatalf("%d %ss", len(w), kind)
		}
		vols, _, _ := unstructured.NestedSlice(w[0].Object, "spec", "template", "spec", "volumes")
		for _, v := range vols {
			v := v.(map[string]any)
			if v["name"] == "cloud-config" {
				if name, _, _ := unstructured.NestedString(v, "secret", "secretName"); name != "cloud-config" {
					t.Errorf("%s: cloud-config volume %v", kind, v)
				}
			}
			if _, ok := v["hostPath"].(map[string]any); ok && (v["name"] == "cloud-config" || v["name"] == "cacert") {
				t.Errorf("%s: host path volume %v", kind, v)
			}
		}
		cs, _, _ := unstructured.NestedSlice(w[0].Object, "spec", "template", "spec", "containers")
		mounts := map[string]bool{}
		for _, c := range cs {
			c := c.(map[string]any)
			if c["name"] != "cinder-csi-plugin" {
				continue
			}
			ms, _, _ := unstructured.NestedSlice(c, "volumeMounts")
			for _, m := range ms {
				m := m.(map[string]any)
				if m["name"] == "cloud-config" && m["readOnly"] == true {
					mounts[m["mountPath"].(string)] = true
				}
			}
			if kind == "Deployment" {
				env, _, _ := unstructured.NestedSlice(c, "env")
				found := false
				for _, e := range env {
					e := e.(map[string]any)
					found = found || (e["name"] == "CLUSTER_NAME" && e["value"] == "5d12f6fd-a196-4bf0-ae4c-1f639a523a52")
				}
				if !found {
					t.Errorf("controller env %v, want CLUSTER_NAME the cluster's UUID", env)
				}
			}
		}
		if !mounts["/etc/kubernetes"] || !mounts["/etc/config"] {
			t.Errorf("%s: cloud-config mounted read-only at %v", kind, mounts)
		}
	}
	tol, _, _ := unstructured.NestedSlice(find(objs, "Deployment")[0].Object, "spec", "template", "spec", "tolerations")
	if len(tol) != 2 || tol[1].(map[string]any)["key"] != "node-role.kubernetes.io/control-plane" {
		t.Errorf("controller tolerations %v", tol)
	}
	if scs := find(objs, "StorageClass"); len(scs) != 1 || scs[0].GetName() != "block-default" {
		t.Errorf("StorageClasses %v, want keel's block-default only", scs)
	}
}
