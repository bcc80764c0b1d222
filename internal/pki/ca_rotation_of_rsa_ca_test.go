package pki

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// An older cluster's RSA CA (Magnum's or Cluster API's: PKCS #1, no
// subject key identifier, no path length constraint) rotates too: the
// result validates, the trust phase's -ca Secret still signs with the RSA
// key, and the machines' client CA accepts both CAs' certificates.
func TestCARotationOfRSACA(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "old"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(CAValidity / 2),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p := rotatedFrom(t, KeyPair{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
	})
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if next := parseCert(t, p.NextCA.Cert); next.Subject.CommonName != "old" || next.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("new CA: %s, %s", next.Subject, next.PublicKeyAlgorithm)
	}
	trust := p.KubernetesCASecret(CAPhaseTrust)
	for _, signer := range []KeyPair{trust, *p.NextCA} {
		if err := verify(t, issue(t, signer, x509.ExtKeyUsageClientAuth), trust.Cert, x509.ExtKeyUsageClientAuth); err != nil {
			t.Fatal(err)
		}
	}
}
