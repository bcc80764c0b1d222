package pki

import (
	"bytes"
	"testing"
)

// Cluster API signs kubeconfigs with the first certificate of the -ca
// Secret's tls.crt and its tls.key: in every phase they match, and tls.crt
// holds the certificates the design gives that phase: the sign phase keeps
// the trust phase's Secret, so the API servers keep serving what the old
// CA signed.
func TestCARotationSecretFirstCertMatchesKey(t *testing.T) {
	p := rotatedPKI(t)
	old, next := p.CA, *p.NextCA
	fin := finishedPKI(t)
	for _, c := range []struct {
		name  string
		p     *ClusterPKI
		phase string
		want  KeyPair
	}{
		{"never rotated", sharedPKI(t), "", old},
		{"trust", p, CAPhaseTrust, KeyPair{Cert: concatPEM(old.Cert, next.Cert), Key: old.Key}},
		{"sign", p, CAPhaseSign, KeyPair{Cert: concatPEM(old.Cert, next.Cert), Key: old.Key}},
		{"finish", fin, CAPhaseFinish, next},
		{"finished, phase unknown to pki", fin, "", next},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.p.KubernetesCASecret(c.phase)
			if !got.Equal(c.want) {
				t.Fatalf("tls.crt/tls.key:\n%s\nwant\n%s", got.Cert, c.want.Cert)
			}
			key, err := ParseKey(got.Key)
			if err != nil {
				t.Fatal(err)
			}
			if !publicKeysEqual(firstCert(t, got.Cert).PublicKey, key.Public()) {
				t.Fatal("the first certificate of tls.crt does not match tls.key")
			}
		})
	}
	if !bytes.Equal(sharedPKI(t).KubernetesCASecret("").Cert, sharedPKI(t).CA.Cert) {
		t.Error("a cluster never rotated does not keep its CA bytes")
	}
}
