package gitstore_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// The one intent reader gives the same cluster from a commit (a gitstore
// snapshot, as the API, the reconciler and the read model read it) and
// from a checkout (os.DirFS, as keel compile reads it), and its errors name
// the file.
func TestReadCommitAndCheckoutAgree(t *testing.T) {
	files := map[string]string{
		"projects/p1/clustertemplates/t-1.yaml":                            "apiVersion: keel.openkeel.io/v1alpha1\nkind: ClusterTemplate\nid: 1\nuuid: t-1\nname: k8s\nproject_id: p1\nuser_id: u\ncoe: kubernetes\nimage_id: img\nregistry_enabled: false\ntls_disabled: false\npublic: false\nhidden: false\nmaster_lb_enabled: false\nfloating_ip_enabled: false\nserver_type: vm\ncreated_at: \"2026-01-01T00:00:00Z\"\n",
		"projects/p1/clusters/a-kube-abcde/cluster.yaml":                   "apiVersion: keel.openkeel.io/v1alpha1\nkind: Cluster\nid: 1\nuuid: c-1\nname: a\nproject_id: p1\nuser_id: u\ncluster_template_id: t-1\ncreate_timeout: 60\nfloating_ip_enabled: false\nmaster_lb_enabled: false\nstack_id: kube-abcde\ncluster_class: magnum-v0.1.0\ncreated_at: \"2026-01-01T00:00:00Z\"\n",
		"projects/p1/clusters/a-kube-abcde/nodegroups/default-worker.yaml": "apiVersion: keel.openkeel.io/v1alpha1\nkind: NodeGroup\nid: 3\nuuid: n-3\nname: default-worker\ncluster_id: c-1\nproject_id: p1\nrole: worker\nis_default: true\nnode_count: 2\nmin_node_count: 0\ncreated_at: \"2026-01-01T00:00:00Z\"\n",
		"projects/p1/clusters/a-kube-abcde/nodegroups/default-master.yaml": "apiVersion: keel.openkeel.io/v1alpha1\nkind: NodeGroup\nid: 2\nuuid: n-2\nname: default-master\ncluster_id: c-1\nproject_id: p1\nrole: master\nis_default: true\nnode_count: 1\nmin_node_count: 0\ncreated_at: \"2026-01-01T00:00:00Z\"\n",
		"projects/p1/clusters/a-kube-abcde/facts.yaml":                     "apiVersion: keel.openkeel.io/v1alpha1\nkind: Facts\nflavor_names:\n  m1: m1.medium\n",
	}
	checkout := t.TempDir()
	store, err := gitstore.Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	var changes []gitstore.Change
	for p, d := range files {
		changes = append(changes, gitstore.Change{Path: p, Data: []byte(d)})
		full := filepath.Join(checkout, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = store.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
		return &gitstore.Commit{Subject: "test", Author: gitstore.Signature{Name: "t", Email: "t@t"}, Changes: changes}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sn, err := store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}

	const dir = "projects/p1/clusters/a-kube-abcde"
	var got []*intent.Documents
	for _, tree := range []intent.Tree{sn, os.DirFS(checkout).(intent.Tree)} {
		dirs, err := intent.ClusterDirs(tree)
		if err != nil || len(dirs) != 1 || dirs[0] != dir {
			t.Fatalf("ClusterDirs = %v, %v", dirs, err)
		}
		d, err := intent.ReadDocuments(tree, dir)
		if err != nil {
			t.Fatal(err)
		}
		if d.Template.UUID != "t-1" || d.Cluster.UUID != "c-1" || d.Facts.FlavorName("m1") != "m1.medium" {
			t.Errorf("read %+v", d)
		}
		if len(d.NodeGroups) != 2 || d.NodeGroups[0].Name != "default-master" {
			t.Errorf("nodegroups %+v, want both, by id", d.NodeGroups)
		}
		if _, err := intent.ReadCluster(tree, "projects/p1/clusters/gone-kube-zzzzz"); !errors.Is(err, fs.ErrNotExist) ||
			!strings.Contains(err.Error(), "gone-kube-zzzzz/cluster.yaml") {
			t.Errorf("missing cluster: %v, want a not-exist error naming the file", err)
		}
		got = append(got, d)
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("commit and checkout differ:\n%+v\n%+v", got[0], got[1])
	}
}
