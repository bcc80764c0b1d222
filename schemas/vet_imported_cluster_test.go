package schemas

import (
	"testing"
)

// A repository fresh from keel import vets clean: a read-only imported
// cluster may name a cluster template the import left out by design (a
// Heat-era one), and a cluster's encrypted key material (secrets/*.sops.yaml,
// which keel checks when it decrypts it) is neither validated nor warned
// about. A cluster keel manages still needs its template (the layout test).
func TestVetImportedCluster(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "../examples/cluster-repo", root)
	cl := "projects/0123456789abcdef0123456789abcdef/clusters/prod-kube-a1b2c"
	edit(t, root, cl+"/cluster.yaml", "cluster_template_id: 5b6c3f0e-8a1d-4c2e-9f3a-1d2e3f4a5b6c",
		"cluster_template_id: 6b1d0f0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b\nimported:\n  from: magnum\n  driver: heat\n"+
			"  status: UPDATE_COMPLETE\n  reason: Imported from Magnum as a read-only record\n")
	write(t, root, cl+"/secrets/pki.sops.yaml", "certificates: {}\ndata: ENC[AES256_GCM,data:x,type:str]\nsops: {}\n")

	vs, ws, err := Vet(root, VetOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 || len(ws) != 0 {
		t.Errorf("an imported repository does not vet clean:\n%v\n%v", vs, ws)
	}
}
