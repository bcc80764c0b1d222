package repo

import (
	"fmt"

	"github.com/openkeel/keel/intent"
)

// caPhaseSecrets say what each phase of a CA rotation puts in the
// cluster's <stack_id>-ca Secret, which the rendered plan cannot show
// (Secrets are encrypted, and their content is not a Cluster API field).
var caPhaseSecrets = map[string]string{
	intent.CAPhaseTrust:  "the CA Secret holds the old and the new CA, the old one still signs",
	intent.CAPhaseSign:   "the CA Secret holds the new CA cross-signed by the old one, the old and the new CA, and the new one signs",
	intent.CAPhaseFinish: "the CA Secret holds only the new CA; Cluster API's kubeconfig is made again with it",
}

// caRotationNote explains a change of a cluster's CA rotation phase
// between two revisions ("" when the phase did not change).
func caRotationNote(bs, hs intent.Tree, dir string) string {
	h, err := intent.ReadClusterDocument(hs, dir)
	if err != nil || h.CARotation == nil {
		return ""
	}
	if b, err := intent.ReadClusterDocument(bs, dir); err == nil && b.CARotation != nil && *b.CARotation == *h.CARotation {
		return ""
	}
	r := h.CARotation
	return fmt.Sprintf("CA rotation %d, phase %d of %d (%s): %s; every machine is replaced", r.Generation, r.PhaseNumber(), len(intent.CAPhases), r.Phase, caPhaseSecrets[r.Phase])
}
