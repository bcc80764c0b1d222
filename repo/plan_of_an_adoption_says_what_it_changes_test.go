package repo

import (
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler/plan"
)

// `keel plan` of the commit that renders an adopted cluster says what
// keel import judged against what ran: "no machine change" (a no-op), or
// the changes --adopt-changes took (which may roll machines); it does not
// compare with keel's own ClusterClass rendered under the driver's name.
func TestPlanOfAnAdoptionSaysWhatItChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes []string
		effect  plan.Effect
		note    string
	}{
		{"as found", nil, plan.NoOp, "adopted from magnum-cluster-api on ClusterClass magnum-v0.26.2, no machine change"},
		{"changes taken", []string{"kube_tag v1.33.4, but Kubernetes v1.32.1 runs"}, plan.Rollout,
			"changes what runs: kube_tag v1.33.4, but Kubernetes v1.32.1 runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, st := adoptedTestCluster()
			st.Cluster.Adopted.Changes = tc.changes
			store, kr := importedAdoption(t, tmpl, st)
			base, err := store.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			changes, _, err := RenderAdopted(base, kr)
			if err != nil {
				t.Fatal(err)
			}
			commit(t, store, changes)
			head, err := store.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			plans, err := PlanChange(t.Context(), base, head)
			if err != nil {
				t.Fatal(err)
			}
			if len(plans) != 1 || plans[0].Plan.Effect != tc.effect || !strings.Contains(plans[0].Plan.Note, tc.note) {
				t.Fatalf("keel plan:\n%s\nwant %s, %q", FormatPlans(plans), tc.effect, tc.note)
			}
		})
	}
}
