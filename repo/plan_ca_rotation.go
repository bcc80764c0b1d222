package repo

import (
	"fmt"

	"github.com/openkeel/keel/intent"
)

// caPhaseEffects say what each phase of a CA rotation puts in the
// cluster's CA Secrets, which the rendered plan cannot show (Secrets are
// encrypted, and their content is not a Cluster API field), and which
// machines it replaces.
var caPhaseEffects = map[string]string{
	intent.CAPhaseTrust:  "the <stack_id>-ca Secret holds the old and the new CA, the old one still signs; every machine is replaced",
	intent.CAPhaseSign:   "the <stack_id>-ca-signer Secret holds the new CA, which kube-controller-manager and keel sign with; the control-plane machines are replaced",
	intent.CAPhaseFinish: "the <stack_id>-ca Secret holds only the new CA; every machine is replaced",
}

// caRotationNote explains a change of a cluster's CA rotation phase
// between two revisions ("" when the phase did not change).
func caRotationNote(bs, hs intent.Tree, dir string) string {
	h, err := intent.ReadClusterDocument(hs, dir)
	if err != nil || h.CARotation == nil {
		return ""
	}
	if b, err := intent.ReadClusterDocument(bs, dir); err == nil && intent.SameCARotation(b.CARotation, h.CARotation) {
		return ""
	}
	r := h.CARotation
	return fmt.Sprintf("CA rotation %d, phase %d of %d (%s): %s", r.Generation, r.PhaseNumber(), len(intent.CAPhases), r.Phase, caPhaseEffects[r.Phase])
}
