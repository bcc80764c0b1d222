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
// old key cross-signs the new ECDSA CA, the result validates, and the new
// CA's certificates chain to the old root through the cross certificate.
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
	cross := parseCert(t, p.CrossCA)
	if cross.SignatureAlgorithm != x509.SHA256WithRSA || cross.NotAfter.After(tmpl.NotAfter) || cross.Subject.CommonName != "old" {
		t.Errorf("cross: %s, notAfter %s, subject %s", cross.SignatureAlgorithm, cross.NotAfter, cross.Subject)
	}
	leaf := leafSignedBy(t, *p.NextCA, "new-client")
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: certPool(t, p.CA.Cert), Intermediates: certPool(t, p.CrossCA),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		t.Fatal(err)
	}
}
