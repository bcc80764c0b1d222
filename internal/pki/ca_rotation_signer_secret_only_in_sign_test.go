package pki

import "testing"

// The <stack>-ca-signer Secret, with which kube-controller-manager signs
// kubelet client certificates, is the new CA in the sign phase and absent
// in every other phase.
func TestCARotationSignerSecretOnlyInSign(t *testing.T) {
	p := rotatedPKI(t)
	fin := finishedPKI(t)
	for _, c := range []struct {
		name  string
		p     *ClusterPKI
		phase string
		want  *KeyPair
	}{
		{"never rotated", sharedPKI(t), "", nil},
		{"trust", p, CAPhaseTrust, nil},
		{"sign", p, CAPhaseSign, p.NextCA},
		{"sign, no rotation begun", sharedPKI(t), CAPhaseSign, nil},
		{"finish", fin, CAPhaseFinish, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.p.CASignerSecret(c.phase)
			if (got == nil) != (c.want == nil) || got != nil && !got.Equal(*c.want) {
				t.Fatalf("ca-signer: %v, want %v", got, c.want)
			}
		})
	}
}
