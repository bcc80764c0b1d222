package repo

import (
	"bytes"
	"context"
	"path"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

func testCluster() (*intent.ClusterTemplate, *intent.ClusterState) {
	tmpl := &intent.ClusterTemplate{
		TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
		UUID:     "7f0c5b5e-2f43-4c43-9a9d-3d1c1b0a0001", Name: "k8s", ProjectID: "p1", COE: "kubernetes", ImageID: "img",
		Labels: map[string]string{"kube_tag": "v1.33.4"},
	}
	c := intent.Cluster{
		TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		ID:       1, UUID: "00000000-0000-4000-8000-000000000001", Name: "prod-a", ProjectID: "p1",
		ClusterTemplateID: tmpl.UUID, Labels: tmpl.Labels, StackID: "kube-stab1", ClusterClass: "magnum-v0.1.0",
	}
	ng := func(id int64, name, role string) intent.NodeGroup {
		return intent.NodeGroup{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
			ID: id, Name: name, ClusterID: c.UUID, ProjectID: "p1", Role: role, IsDefault: true, NodeCount: 1}
	}
	return tmpl, &intent.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c, NodeGroups: []intent.NodeGroup{
		ng(1, intent.DefaultMasterNodeGroup, intent.RoleMaster), ng(2, intent.DefaultWorkerNodeGroup, intent.RoleWorker)}}
}

func write(t *testing.T, store *gitstore.Store, tmpl *intent.ClusterTemplate, st *intent.ClusterState, opts ...WriteOption) error {
	t.Helper()
	_, err := store.Update(context.Background(), func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		changes, err := WriteCluster(sn, tmpl, st, intent.Facts{}, opts...)
		if err != nil {
			return nil, err
		}
		return &gitstore.Commit{Subject: "write", Author: gitstore.Signature{Name: "t", Email: "t@x"}, Changes: changes}, nil
	})
	return err
}

func readAll(t *testing.T, store *gitstore.Store, dir string) map[string][]byte {
	t.Helper()
	sn, err := store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	if err := sn.Walk(dir, func(p string, data []byte) error { out[p] = data; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// Re-rendering a cluster (here: a resize) keeps the ciphertext of every
// unchanged Secret and of the key document byte for byte, so Git shows
// only the real change; a changed cloud credential re-encrypts only the
// cloud-config Secret. Without the keyring, a cluster with key material
// is refused rather than written without its Secrets.
func TestSecretCiphertextStableAcrossRerender(t *testing.T) {
	store, kr := newKeyedStore(t)
	sec := &Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.org/v3"}}
	tmpl, st := testCluster()
	if err := write(t, store, tmpl, st, WithSecrets(sec)); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, store, st.Dir)
	rendered := intent.RenderedPath(st.Dir)
	for _, f := range []string{"secret-ca.yaml", "secret-etcd.yaml", "secret-proxy.yaml", "secret-sa.yaml", "secret-cloud-config.yaml"} {
		if data, ok := before[path.Join(rendered, f)]; !ok || !secrets.IsEncrypted(data) {
			t.Fatalf("%s missing or not encrypted", f)
		}
	}
	if !secrets.IsEncrypted(before[intent.PKIPath(st.Dir)]) {
		t.Fatal("pki.sops.yaml missing or not encrypted")
	}

	st.NodeGroups[1].NodeCount = 3
	if err := write(t, store, tmpl, st, WithSecrets(sec)); err != nil {
		t.Fatal(err)
	}
	after := readAll(t, store, st.Dir)
	for p, data := range before {
		changed := !bytes.Equal(after[p], data)
		wantChange := strings.HasSuffix(p, "/rendered/cluster.yaml") || strings.HasSuffix(p, "default-worker.yaml")
		if changed != wantChange {
			t.Errorf("%s: changed=%v, want %v", p, changed, wantChange)
		}
	}

	sec.Cloud.AuthURL = "https://keystone.other.example.org/v3"
	if err := write(t, store, tmpl, st, WithSecrets(sec)); err != nil {
		t.Fatal(err)
	}
	rotated := readAll(t, store, st.Dir)
	if bytes.Equal(rotated[path.Join(rendered, "secret-cloud-config.yaml")], after[path.Join(rendered, "secret-cloud-config.yaml")]) {
		t.Error("a new auth URL did not re-encrypt the cloud-config Secret")
	}
	if !bytes.Equal(rotated[path.Join(rendered, "secret-ca.yaml")], after[path.Join(rendered, "secret-ca.yaml")]) {
		t.Error("the CA Secret changed with the auth URL")
	}

	if err := write(t, store, tmpl, st); err == nil || !strings.Contains(err.Error(), "WithSecrets") {
		t.Errorf("write without keyring: err = %v", err)
	}
}
