package manilacsi

import "testing"

// Without manila_csi_share_network_id there is no StorageClass, as in the
// reference; with it, share-default provisions NFS shares of the driver's
// default share type in that network, authenticating with
// kube-system/csi-manila-secrets for every operation. It is not the
// cluster's default StorageClass (Cinder's is).
func TestShareNetworkStorageClass(t *testing.T) {
	for _, c := range []struct {
		network string
		want    int
	}{{"", 0}, {"3fa85f64-5717-4562-b3fc-2c963f66afa6", 1}} {
		scs := find(render(t, Params{ClusterUUID: "u", Tag: "v1.32.0", Sidecars: sidecars, ShareNetworkID: c.network}), "StorageClass")
		if len(scs) != c.want {
			t.Fatalf("share network %q: %d StorageClasses, want %d", c.network, len(scs), c.want)
		}
		if c.want == 0 {
			continue
		}
		sc := scs[0]
		params := sc.Object["parameters"].(map[string]any)
		if sc.GetName() != "share-default" || sc.Object["provisioner"] != "nfs.manila.csi.openstack.org" ||
			params["type"] != "default" || params["shareNetworkID"] != c.network || len(params) != 10 ||
			sc.Object["reclaimPolicy"] != "Delete" || sc.Object["allowVolumeExpansion"] != true || len(sc.GetAnnotations()) != 0 {
			t.Errorf("StorageClass %v", sc.Object)
		}
		for _, op := range []string{"provisioner", "controller-expand", "node-stage", "node-publish"} {
			if params["csi.storage.k8s.io/"+op+"-secret-name"] != "csi-manila-secrets" || params["csi.storage.k8s.io/"+op+"-secret-namespace"] != "kube-system" {
				t.Errorf("%s secret parameters %v", op, params)
			}
		}
	}
}
