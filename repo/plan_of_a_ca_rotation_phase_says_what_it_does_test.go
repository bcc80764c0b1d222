package repo

import (
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
)

// `keel plan` of a CA rotation phase's commit notes what the phase puts in
// the CA Secrets and which machines it replaces; a commit that leaves the
// phase alone has no such note.
func TestPlanOfACARotationPhaseSaysWhatItDoes(t *testing.T) {
	store, _, opt, tmpl, st := keyedRepo(t)
	for _, tc := range []struct {
		phase string
		want  string
	}{
		{intent.CAPhaseTrust, "CA rotation 1, phase 1 of 3 (trust): the <stack_id>-ca Secret holds the old and the new CA, the old one still signs; every machine is replaced"},
		{intent.CAPhaseSign, "phase 2 of 3 (sign): the <stack_id>-ca-signer Secret holds the new CA, which kube-controller-manager and keel sign with; the control-plane machines are replaced"},
		{intent.CAPhaseSign, ""},
		{intent.CAPhaseFinish, "phase 3 of 3 (finish): the <stack_id>-ca Secret holds only the new CA; every machine is replaced"},
	} {
		bs, _ := store.SnapshotHead()
		st.Cluster.CARotation = &intent.CARotation{Generation: 1, Phase: tc.phase}
		if err := write(t, store, tmpl, st, opt); err != nil {
			t.Fatal(err)
		}
		hs, _ := store.SnapshotHead()
		got := caRotationNote(bs, hs, st.Dir)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: note %q, want %q", tc.phase, got, tc.want)
		}
	}
}
