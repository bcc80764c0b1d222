package restapi

import (
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// BenchmarkValidateDocuments is the schema check every mutation pays before
// its commit (validateDocuments), for a cluster create: the cluster and its
// two default nodegroups, on the cached, already compiled schema.
func BenchmarkValidateDocuments(b *testing.B) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	labels := map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "50", "auto_healing_enabled": "true"}
	cl := intent.Cluster{
		TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		ID:       1, UUID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", Name: "prod", ProjectID: "p1", UserID: "u1",
		ClusterTemplateID: "3fa85f64-5717-4562-b3fc-2c963f66afa7", Labels: labels, CreateTimeout: 60,
		StackID: "kube-abcde", ClusterClass: "magnum-v0-1-0", CreatedAt: now,
	}
	dir := intent.ClusterDirOf(&cl)
	docs := []struct {
		path string
		v    any
	}{{path: dir + "/" + intent.ClusterFile, v: cl}}
	for i, role := range []string{intent.RoleMaster, intent.RoleWorker} {
		name := map[string]string{intent.RoleMaster: intent.DefaultMasterNodeGroup, intent.RoleWorker: intent.DefaultWorkerNodeGroup}[role]
		docs = append(docs, struct {
			path string
			v    any
		}{intent.NodeGroupPath(dir, name), intent.NodeGroup{
			TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
			ID:       int64(i + 1), UUID: "3fa85f64-5717-4562-b3fc-2c963f66afa" + string(rune('0'+i)), Name: name,
			ClusterID: cl.UUID, ProjectID: "p1", Role: role, IsDefault: true, NodeCount: 3, Labels: labels, CreatedAt: now,
		}})
	}
	var changes []gitstore.Change
	for _, d := range docs {
		data, err := intent.Marshal(d.v)
		if err != nil {
			b.Fatal(err)
		}
		changes = append(changes, gitstore.Change{Path: d.path, Data: data})
	}
	cat := schemas.Default()
	if err := checkDocuments(cat, changes); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := checkDocuments(cat, changes); err != nil {
			b.Fatal(err)
		}
	}
}
