package magnumimport_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/intent"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// On a schema that has nodegroup.node_labels and node_taints (upstream
// revision b3e1cf4a2d5e, whose migration adds exactly these two columns),
// the import keeps them; on the Debian head they are absent and read as
// none (the other tests).
func TestImportReadsNodeLabelsAndTaints(t *testing.T) {
	for _, m := range mdb.All(t) {
		t.Run(m.Name, func(t *testing.T) {
			m.Exec(t, "ALTER TABLE nodegroup ADD COLUMN node_labels TEXT")
			m.Exec(t, "ALTER TABLE nodegroup ADD COLUMN node_taints TEXT")
			m.Exec(t, "UPDATE alembic_version SET version_num = ?", "b3e1cf4a2d5e")
			mdb.FillStandard(t, m)
			m.Exec(t, "UPDATE nodegroup SET node_labels = ?, node_taints = ? WHERE id = ?",
				`{"node.kubernetes.io/pool": "gpu"}`, `[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]`, 12)
			st := newRepo(t)
			if _, err := magnumimport.Apply(context.Background(), st, read(t, m)); err != nil {
				t.Fatal(err)
			}
			sn, err := st.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			c, err := intent.ReadCluster(sn, intent.ClusterDir(mdb.ProjectA, "prod-a", "kube-ab12c"))
			if err != nil {
				t.Fatal(err)
			}
			w := c.NodeGroups[1]
			if w.NodeLabels["node.kubernetes.io/pool"] != "gpu" || len(w.NodeTaints) != 1 ||
				w.NodeTaints[0] != (intent.Taint{Key: "gpu", Value: "true", Effect: "NoSchedule"}) || c.NodeGroups[0].NodeLabels != nil {
				t.Errorf("nodegroups = %+v", c.NodeGroups)
			}
		})
	}
}
