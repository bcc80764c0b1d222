package magnumimport_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// --plan prints what would be written and what is left out and why
// (testdata/plan.golden), and leaves the repository as it was.
func TestImportPlanWritesNothing(t *testing.T) {
	for _, m := range mdb.All(t) {
		t.Run(m.Name, func(t *testing.T) {
			mdb.FillStandard(t, m)
			// Magnum's default store: the Heat cluster's CAs in Barbican
			// (the other's are local files), neither given to the import.
			for i, col := range []string{"ca_cert_ref", "etcd_ca_cert_ref", "front_proxy_ca_cert_ref", "magnum_cert_ref"} {
				m.Exec(t, "UPDATE cluster SET "+col+" = ? WHERE uuid = ?",
					fmt.Sprintf("https://barbican.example.com:9311/v1/containers/c0ffee00-0000-4000-8000-00000000000%d", i), mdb.ClusterHeat)
			}
			st := newRepo(t)
			before, objects := head(t, st), git(t, st, "count-objects", "-v")
			p, err := magnumimport.PlanOn(st, read(t, m))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := p.Print(&out); err != nil {
				t.Fatal(err)
			}
			if head(t, st) != before {
				t.Fatal("--plan moved the branch")
			}
			if after := git(t, st, "count-objects", "-v"); after != objects {
				t.Errorf("--plan wrote objects:\n%s\nbefore:\n%s", after, objects)
			}
			got := strings.Replace(out.String(), p.Source, "SOURCE", 1)
			golden := filepath.Join("testdata", "plan.golden")
			if *update && m.Name == "sqlite" {
				_ = os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("plan differs from %s (go test -run TestImportPlanWritesNothing -update):\n%s", golden, got)
			}
		})
	}
}
