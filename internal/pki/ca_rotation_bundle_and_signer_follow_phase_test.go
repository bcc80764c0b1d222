package pki

import (
	"bytes"
	"testing"
)

// GET /v1/certificates returns the CA that signs first, both while
// rotating; POST /v1/certificates signs with the old CA until the sign
// phase.
func TestCARotationBundleAndSignerFollowPhase(t *testing.T) {
	p := rotatedPKI(t)
	old, next := p.CA, *p.NextCA
	fin := finishedPKI(t)
	for _, c := range []struct {
		name   string
		p      *ClusterPKI
		phase  string
		bundle []byte
		signer KeyPair
	}{
		{"never rotated", sharedPKI(t), "", old.Cert, old},
		{"trust", p, CAPhaseTrust, concatPEM(old.Cert, next.Cert), old},
		{"sign", p, CAPhaseSign, concatPEM(next.Cert, old.Cert), next},
		{"finish", fin, CAPhaseFinish, next.Cert, next},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.p.TrustBundle(c.phase); !bytes.Equal(got, c.bundle) {
				t.Errorf("trust bundle:\n%s\nwant\n%s", got, c.bundle)
			}
			if got := c.p.SigningCA(c.phase); !got.Equal(c.signer) {
				t.Errorf("signing CA:\n%s\nwant\n%s", got.Cert, c.signer.Cert)
			}
		})
	}
}
