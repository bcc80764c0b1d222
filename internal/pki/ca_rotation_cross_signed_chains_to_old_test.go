package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"testing"
	"time"
)

// What the new CA signs verifies for clients that trust the new CA, the
// bundle of any phase, or the old CA through the cross-signed certificate;
// what the old CA signed stays trusted through the sign phase only.
func TestCARotationCrossSignedChainsToOld(t *testing.T) {
	p := rotatedPKI(t)
	fin := finishedPKI(t)
	leaf := leafSignedBy(t, *p.NextCA, "new-client")
	oldLeaf := leafSignedBy(t, p.CA, "old-client")
	for _, c := range []struct {
		name          string
		leaf          *x509.Certificate
		roots, inters *x509.CertPool
		ok            bool
	}{
		{"new: roots {new}", leaf, certPool(t, p.NextCA.Cert), nil, true},
		{"new: trust bundle", leaf, certPool(t, p.TrustBundle(CAPhaseTrust)), nil, true},
		{"new: sign bundle", leaf, certPool(t, p.TrustBundle(CAPhaseSign)), nil, true},
		{"new: finish bundle", leaf, certPool(t, fin.TrustBundle(CAPhaseFinish)), nil, true},
		{"new: finished, no phase", leaf, certPool(t, fin.TrustBundle("")), nil, true},
		{"new: roots {old} alone", leaf, certPool(t, p.CA.Cert), nil, false},
		{"old: sign-phase tls.crt", oldLeaf, certPool(t, p.KubernetesCASecret(CAPhaseSign).Cert), nil, true},
		{"old: trust-phase tls.crt", oldLeaf, certPool(t, p.KubernetesCASecret(CAPhaseTrust).Cert), nil, true},
		{"old: finish-phase tls.crt", oldLeaf, certPool(t, fin.KubernetesCASecret(CAPhaseFinish).Cert), nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.leaf.Verify(x509.VerifyOptions{Roots: c.roots, Intermediates: c.inters, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
			if (err == nil) != c.ok {
				t.Fatalf("verified: %v, want %v", err, c.ok)
			}
		})
	}
}

// The new CA's leaf, presented with the cross-signed certificate, chains to
// the old CA alone when the old CA allows an intermediate CA below it
// (kubeadm's and Cluster API's CAs carry no path length constraint).
// Keel's own CAs carry pathlen:0: RFC 5280 (6.1.4 (l)) does not count the
// cross-signed certificate, self-issued (its issuer is its subject), and
// OpenSSL 3 accepts the chain, but Go's crypto/x509 counts every
// intermediate, so Go clients (kubectl, client-go) that trust only such an
// old CA cannot verify the chain: this case pins that limitation.
func TestCARotationCrossSignedChainsToOldRoot(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *ClusterPKI
		ok   bool
	}{
		{"old CA without path length constraint", rotatedFrom(t, unconstrainedCA(t)), true},
		{"keel's old CA, pathlen 0 (Go only)", rotatedPKI(t), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			leaf := leafSignedBy(t, *c.p.NextCA, "new-client")
			_, err := leaf.Verify(x509.VerifyOptions{Roots: certPool(t, c.p.CA.Cert), Intermediates: certPool(t, c.p.CrossCA),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
			if (err == nil) != c.ok {
				t.Fatalf("verified: %v, want %v", err, c.ok)
			}
			var ce x509.CertificateInvalidError
			if !c.ok && (!errors.As(err, &ce) || ce.Reason != x509.TooManyIntermediates) {
				t.Fatalf("error %v, want too many intermediates", err)
			}
		})
	}
}

// unconstrainedCA is a CA as kubeadm makes them: no path length constraint.
func unconstrainedCA(t *testing.T) KeyPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "kubernetes"}, SubjectKeyId: []byte{1, 2, 3},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(CAValidity),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return KeyPair{Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}
}

// rotatedFrom is sharedPKI with ca as its CA and a rotation begun.
func rotatedFrom(t *testing.T, ca KeyPair) *ClusterPKI {
	t.Helper()
	p := *sharedPKI(t)
	p.CA = ca
	if err := p.BeginCARotation(time.Now()); err != nil {
		t.Fatal(err)
	}
	return &p
}
