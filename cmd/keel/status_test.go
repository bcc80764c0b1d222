package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
)

// keel status lists each cluster with its Magnum status and whether the
// reconciler applied Git HEAD, and why not.
func TestStatusShowsClustersAndApplyErrors(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	store, err := gitstore.Open(filepath.Join(dir, "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := intent.ClusterTemplate{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
		UUID: "11111111-1111-4111-8111-111111111119", Name: "k8s", ProjectID: "p", COE: "kubernetes", ImageID: "img",
		ServerType: "vm", Labels: map[string]string{"kube_tag": "v1.33.4"}}
	c := intent.Cluster{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		UUID: "22222222-2222-4222-8222-222222222229", Name: "shown", ProjectID: "p", ClusterTemplateID: tmpl.UUID,
		Labels: tmpl.Labels, StackID: "kube-stat1", ClusterClass: "magnum-v0.1.0", CreatedAt: time.Now().UTC()}
	st := &intent.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c, NodeGroups: []intent.NodeGroup{{
		TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
		UUID:     "33333333-3333-4333-8333-333333333339", Name: "default-master", ClusterID: c.UUID, ProjectID: "p", Role: "master", IsDefault: true, NodeCount: 1}}}
	_, err = store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		ch, err := repo.WriteCluster(sn, &tmpl, st, intent.Facts{})
		tp, _ := repo.Document(intent.TemplatePath("p", tmpl.UUID), tmpl)
		return &gitstore.Commit{Subject: "c", Author: gitstore.Signature{Name: "t", Email: "t@x"}, Changes: append(ch, tp)}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := readmodel.Open(ctx, filepath.Join(dir, "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	db.Applied(ctx, c.UUID, "", 0, errFake("the management cluster refused it"))
	db.Close()

	cmd := statusCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--data-dir", dir})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	line := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "shown ") {
			line = l
		}
	}
	for _, want := range []string{"kube-stat1", "CREATE_IN_PROGRESS", "failed", "the management cluster refused it"} {
		if !strings.Contains(line, want) {
			t.Errorf("status line %q lacks %q\n%s", line, want, out.String())
		}
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }
