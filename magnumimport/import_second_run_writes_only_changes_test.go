package magnumimport_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// A second run over an unchanged database writes nothing; after a change
// in Magnum it writes one commit for that project only, updating the
// objects in place (same ids, same folder), never duplicating them.
func TestImportSecondRunWritesOnlyChanges(t *testing.T) {
	for _, m := range mdb.All(t) {
		t.Run(m.Name, func(t *testing.T) {
			mdb.FillStandard(t, m)
			st := newRepo(t)
			ctx := context.Background()
			if _, err := magnumimport.Apply(ctx, st, read(t, m)); err != nil {
				t.Fatal(err)
			}
			first := head(t, st)
			made, err := magnumimport.Apply(ctx, st, read(t, m))
			if err != nil || len(made) != 0 || head(t, st) != first {
				t.Fatalf("second run over the same database: commits %v, err %v", made, err)
			}
			m.Exec(t, "UPDATE nodegroup SET node_count = ? WHERE id = ?", 4, 12)
			m.Exec(t, "INSERT INTO quotas (id, project_id, resource, hard_limit, created_at) VALUES (?, ?, ?, ?, ?)", 2, mdb.ProjectB, "Cluster", 3, "2026-01-05 00:00:00")
			for i, want := range []int{2, 0} { // the change, then nothing again
				made, err = magnumimport.Apply(ctx, st, read(t, m))
				if err != nil || len(made) != want {
					t.Fatalf("run %d after the change: commits %v, err %v; want %d", i+3, made, err, want)
				}
			}
			sn, err := st.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			dirs, _ := intent.ClusterDirs(sn)
			if len(dirs) != 2 {
				t.Fatalf("cluster folders = %v, want 2", dirs)
			}
			c, err := intent.ReadCluster(sn, intent.ClusterDir(mdb.ProjectA, "prod-a", "kube-ab12c"))
			if err != nil || len(c.NodeGroups) != 2 || c.NodeGroups[1].NodeCount != 4 || c.NodeGroups[1].ID != 12 {
				t.Fatalf("after the change: %+v, %v", c, err)
			}
			if log := git(t, st, "log", "--format=%s"); strings.Count(log, "import: project") != 4 {
				t.Errorf("commits:\n%s", log)
			}
		})
	}
}
