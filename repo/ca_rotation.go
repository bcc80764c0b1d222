package repo

import (
	"fmt"
	"time"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/pki"
)

// followCARotation brings a cluster's key material to the phase its
// intent records (intent.CARotation): the trust phase makes the new CA
// (kept in the encrypted key document beside the old one), the finish
// phase drops the old one. The record decides, not the write, so that a
// re-render changes nothing, and a `git revert` of a phase's commit puts
// the key document back together with the record.
func followCARotation(p *pki.ClusterPKI, r *intent.CARotation, now time.Time) error {
	if r == nil {
		return nil
	}
	switch {
	case r.Phase == intent.CAPhaseTrust && p.NextCA == nil:
		return p.BeginCARotation(now)
	case r.Phase == intent.CAPhaseSign && p.NextCA == nil:
		// Only a hand-edited cluster.yaml gets here: signing with a CA
		// that no machine trusts yet would cut every client off.
		return fmt.Errorf("the CA rotation is at phase %s but the key document holds no new CA: set ca_rotation back to the phase the key document is at, or start the rotation again", r.Phase)
	case r.Phase == intent.CAPhaseFinish && p.NextCA != nil:
		return p.FinishCARotation()
	}
	return nil
}
