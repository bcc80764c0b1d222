package magnumimport_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// The import writes one commit per project, authored and trailed as an
// import, that git fsck --strict accepts, holding Magnum's uuids, names,
// stack ids, ids and timestamps; clusters are read-only records with
// Magnum's status.
func TestImportOneCommitPerProject(t *testing.T) {
	for _, m := range mdb.All(t) {
		t.Run(m.Name, func(t *testing.T) {
			mdb.FillStandard(t, m)
			st := newRepo(t)
			made, err := magnumimport.Apply(context.Background(), st, read(t, m))
			if err != nil {
				t.Fatal(err)
			}
			if len(made) != 2 {
				t.Fatalf("commits = %d, want 2 (one per project)", len(made))
			}
			git(t, st, "fsck", "--strict")
			log := git(t, st, "log", "--format=%an <%ae>%n%B%n--")
			for _, want := range []string{"keel import <import@keel>", "Keel-Operation: import", "Keel-Import: magnum",
				"Keel-Project: " + mdb.ProjectA, "Keel-Project: " + mdb.ProjectB, "Keel-Import-Source: " + strings.Split(m.URL, "?")[0]} {
				if m.Name == "sqlite" || !strings.HasPrefix(want, "Keel-Import-Source") {
					if !strings.Contains(log, want) {
						t.Errorf("log lacks %q:\n%s", want, log)
					}
				}
			}
			if strings.Contains(log, "secret") || strings.Contains(log, ":keel@") {
				t.Errorf("a password reached the log:\n%s", log)
			}
			sn, err := st.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			checkCAPICluster(t, sn)
			checkHeatCluster(t, sn)
		})
	}
}

func checkCAPICluster(t *testing.T, sn *gitstore.Snapshot) {
	t.Helper()
	c, err := intent.ReadCluster(sn, intent.ClusterDir(mdb.ProjectA, "prod-a", "kube-ab12c"))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 1, 3, 4, 5, 6, 0, time.UTC)
	im := c.Cluster.Imported
	switch {
	case c.Cluster.UUID != mdb.ClusterCAPI || c.Cluster.ID != 7 || c.Cluster.StackID != "kube-ab12c":
		t.Errorf("cluster = %+v", c.Cluster)
	case !c.Cluster.CreatedAt.Equal(want) || c.Cluster.UpdatedAt == nil:
		t.Errorf("timestamps = %v %v, want created %v", c.Cluster.CreatedAt, c.Cluster.UpdatedAt, want)
	case im == nil || im.Status != "CREATE_COMPLETE" || im.Driver != magnumimport.DriverClusterAPI || im.StackID != "":
		t.Errorf("imported = %+v", im)
	case len(c.NodeGroups) != 2 || c.NodeGroups[1].NodeCount != 2 || intent.Deref(c.NodeGroups[1].MaxNodeCount) != 5 || c.NodeGroups[1].ID != 12:
		t.Errorf("nodegroups = %+v", c.NodeGroups)
	}
	if _, err := sn.ReadFile(intent.TemplatePath(mdb.ProjectA, mdb.TmplCAPI)); err != nil {
		t.Errorf("template: %v", err)
	}
	q, err := intent.ReadQuota(sn, intent.QuotaPath(mdb.ProjectA))
	if err != nil || q.HardLimit != 10 {
		t.Errorf("quota = %+v, %v", q, err)
	}
}

func checkHeatCluster(t *testing.T, sn *gitstore.Snapshot) {
	t.Helper()
	dirs, err := intent.ClusterDirs(sn)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		c, err := intent.ReadClusterDocument(sn, d)
		if err != nil || c.UUID != mdb.ClusterHeat {
			continue
		}
		im := c.Imported
		if im == nil || im.Driver != magnumimport.DriverHeat || im.StackID != mdb.HeatStack || im.Status != "UPDATE_COMPLETE" ||
			!strings.Contains(im.Reason, "cannot adopt") || !strings.Contains(im.Reason, "Stack UPDATE completed successfully") ||
			!intent.ValidStackID(c.StackID) || c.MagnumStackID() != mdb.HeatStack {
			t.Errorf("heat cluster = %+v %+v", c, im)
		}
		return
	}
	t.Errorf("the Heat cluster was not imported (dirs %v)", dirs)
}
