package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/readmodel/rmtest"
)

// A list reads the nodegroups of all its clusters at once: each cluster
// still shows its own, and only its own, in order.
func TestListGivesEachClusterItsNodeGroups(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, dsn, "c1", "kube-aaaaa", map[string]string{"kube_tag": "v1.33.4"},
				[2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			f.write("create")
			first := f.st.Cluster.UUID
			second := *f.st
			second.Cluster.ID, second.Cluster.UUID, second.Cluster.Name, second.Cluster.StackID = 2, "44444444-4444-4444-8444-444444444444", "c2", "kube-bbbbb"
			second.Dir = intent.ClusterDirOf(&second.Cluster)
			second.NodeGroups = nil
			for i, ng := range append(f.st.NodeGroups, intent.NodeGroup{Name: "extra", Role: "worker", NodeCount: 1}) {
				ng.TypeMeta = f.st.NodeGroups[0].TypeMeta
				ng.ID, ng.UUID, ng.ClusterID = int64(10+i), "55555555-5555-4555-8555-55555555555"+string(rune('1'+i)), second.Cluster.UUID
				second.NodeGroups = append(second.NodeGroups, ng)
			}
			f.st = &second
			f.write("create")
			vs, err := f.db.ListClusters(context.Background(), readmodel.Scope{ProjectID: "p"})
			if err != nil || len(vs) != 2 {
				t.Fatalf("list: %d clusters, %v", len(vs), err)
			}
			for i, want := range []struct {
				uuid  string
				names []string
			}{{first, []string{"default-master", "default-worker"}}, {second.Cluster.UUID, []string{"default-master", "default-worker", "extra"}}} {
				var names []string
				for _, ng := range vs[i].NodeGroups {
					if ng.ClusterID != want.uuid {
						t.Errorf("cluster %s shows nodegroup %s of %s", want.uuid, ng.Name, ng.ClusterID)
					}
					names = append(names, ng.Name)
				}
				if vs[i].UUID != want.uuid || len(names) != len(want.names) || names[len(names)-1] != want.names[len(want.names)-1] {
					t.Errorf("cluster %d (%s): nodegroups %v, want %v", i, vs[i].UUID, names, want.names)
				}
			}
		})
	}
}
