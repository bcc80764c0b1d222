package repo

import (
	"path"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// keel import commits an adopted cluster's intent and key material, then
// RenderAdopted renders it: the Cluster on the driver's ClusterClass and
// the CA Secrets (encrypted with the imported CAs), never keel's
// ClusterClass under the driver's class name, and nothing for a cluster
// already rendered, and `keel compile --check` finds it current; nor does a
// later write through the API (a resize) render keel's class.
func TestRenderAdoptedKeepsTheDriversClass(t *testing.T) {
	tmpl, st := adoptedTestCluster()
	store, kr := importedAdoption(t, tmpl, st)

	sn, err := store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	changes, dirs, err := RenderAdopted(sn, kr)
	if err != nil || len(dirs) != 1 || dirs[0] != st.Dir {
		t.Fatalf("RenderAdopted: %v, folders %v", err, dirs)
	}
	rendered := intent.RenderedPath(st.Dir)
	got := map[string]gitstore.Change{}
	for _, c := range changes {
		if strings.HasPrefix(c.Path, intent.ClusterClassDir("magnum-v0.26.2")) {
			t.Errorf("keel's ClusterClass rendered under the driver's name: %s", c.Path)
		}
		if !strings.HasPrefix(c.Path, rendered) {
			t.Errorf("RenderAdopted changes %s, outside the rendered folder", c.Path)
		}
		got[c.Path] = c
	}
	if ca := got[path.Join(rendered, "secret-ca.yaml")]; !secrets.IsEncrypted(ca.Data) {
		t.Errorf("the CA Secret is missing or not encrypted")
	}
	if !strings.Contains(string(got[path.Join(rendered, "cluster.yaml")].Data), "name: magnum-v0.26.2") {
		t.Errorf("the Cluster is not on the driver's class:\n%s", got[path.Join(rendered, "cluster.yaml")].Data)
	}
	commit(t, store, changes)
	if sn, err = store.SnapshotHead(); err != nil {
		t.Fatal(err)
	}
	if changes, dirs, err = RenderAdopted(sn, kr); err != nil || len(changes)+len(dirs) != 0 {
		t.Errorf("a second RenderAdopted renders %v (%v)", dirs, err)
	}
	if _, problems, err := Staleness(sn, st.Dir, nil); err != nil || len(problems) > 0 {
		t.Errorf("keel compile --check finds the adopted cluster stale: %v (%v)", problems, err)
	}
	st.NodeGroups[1].NodeCount = 3 // a resize through the API
	if changes, err = WriteCluster(sn, tmpl, st, intent.Facts{}, WithSecrets(&Secrets{Keyring: kr})); err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if strings.HasPrefix(c.Path, intent.ClusterClassDir("magnum-v0.26.2")) {
			t.Errorf("a resize renders keel's ClusterClass under the driver's name: %s", c.Path)
		}
	}
}
