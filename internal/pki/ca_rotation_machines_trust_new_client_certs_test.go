package pki

import (
	"crypto/x509"
	"testing"
)

// The machines' client CA (all of the -ca Secret's tls.crt, kube-apiserver's
// client-ca-file and the kubelets' ca.crt) accepts client certificates the
// new CA signs (the ca-signer's kubelet certificates, POST
// /v1/certificates) from the trust phase on, and stops accepting the old
// CA's in finish.
func TestCARotationMachinesTrustNewClientCerts(t *testing.T) {
	p := rotatedPKI(t)
	fin := finishedPKI(t)
	byNew := issue(t, *p.NextCA, x509.ExtKeyUsageClientAuth)
	byOld := issue(t, p.CA, x509.ExtKeyUsageClientAuth)
	for _, c := range []struct {
		name        string
		leaf        *x509.Certificate
		clientCA    []byte
		wantTrusted bool
	}{
		{"trust, signed by the new CA", byNew, p.KubernetesCASecret(CAPhaseTrust).Cert, true},
		{"trust, signed by the old CA", byOld, p.KubernetesCASecret(CAPhaseTrust).Cert, true},
		{"sign, signed by the new CA", byNew, p.KubernetesCASecret(CAPhaseSign).Cert, true},
		{"sign, signed by the old CA", byOld, p.KubernetesCASecret(CAPhaseSign).Cert, true},
		{"finish, signed by the new CA", byNew, fin.KubernetesCASecret(CAPhaseFinish).Cert, true},
		{"finish, signed by the old CA", byOld, fin.KubernetesCASecret(CAPhaseFinish).Cert, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := verify(t, c.leaf, c.clientCA, x509.ExtKeyUsageClientAuth); (err == nil) != c.wantTrusted {
				t.Fatalf("verify: %v, want trusted %v", err, c.wantTrusted)
			}
		})
	}
}
