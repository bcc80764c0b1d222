package pki

import (
	"crypto/x509"
	"testing"
)

// What POST /v1/certificates signs in a phase (SigningCA) verifies for a
// client trusting that phase's GET /v1/certificates bundle (TrustBundle).
func TestCARotationSignedLeafVerifiesAgainstBundle(t *testing.T) {
	p := rotatedPKI(t)
	fin := finishedPKI(t)
	for _, c := range []struct {
		name  string
		p     *ClusterPKI
		phase string
	}{
		{"never rotated", sharedPKI(t), ""},
		{"trust", p, CAPhaseTrust},
		{"sign", p, CAPhaseSign},
		{"finish", fin, CAPhaseFinish},
	} {
		t.Run(c.name, func(t *testing.T) {
			leaf := issue(t, *c.p.SigningCA(c.phase), x509.ExtKeyUsageClientAuth)
			if err := verify(t, leaf, c.p.TrustBundle(c.phase), x509.ExtKeyUsageClientAuth); err != nil {
				t.Fatal(err)
			}
		})
	}
}
