package pki

import (
	"crypto/x509"
	"testing"
)

// The property the rotation's design exists for: the API servers' serving
// certificates, which kubeadm signs with the -ca Secret's key, verify for
// a Go client (kubectl, client-go, Cluster API) trusting only the old CA
// in the trust and sign phases, and only the new CA in finish. No
// cross-signed certificate is involved: with keel's pathlen:0 CAs Go
// would refuse the chain.
func TestCARotationOldCAClientsTrustServersUntilFinish(t *testing.T) {
	p := rotatedPKI(t)
	fin := finishedPKI(t)
	old, next := p.CA.Cert, p.NextCA.Cert
	for _, c := range []struct {
		name        string
		p           *ClusterPKI
		phase       string
		roots       []byte
		wantTrusted bool
	}{
		{"trust, client trusts the old CA", p, CAPhaseTrust, old, true},
		{"sign, client trusts the old CA", p, CAPhaseSign, old, true},
		{"finish, client trusts the old CA", fin, CAPhaseFinish, old, false},
		{"finish, client trusts the new CA", fin, CAPhaseFinish, next, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			server := issue(t, c.p.KubernetesCASecret(c.phase), x509.ExtKeyUsageServerAuth)
			if err := verify(t, server, c.roots, x509.ExtKeyUsageServerAuth); (err == nil) != c.wantTrusted {
				t.Fatalf("verify: %v, want trusted %v", err, c.wantTrusted)
			}
		})
	}
}
