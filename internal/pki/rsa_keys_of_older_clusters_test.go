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

// Clusters created before keel switched to ECDSA keep their RSA CAs (PKCS
// #1 "RSA PRIVATE KEY", as Magnum and Cluster API write them): they still
// validate and still sign users' CSRs.
func TestRSAKeysOfOlderClustersStillSign(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "old"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(CAValidity),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := KeyPair{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
	}
	p := *sharedPKI(t)
	p.CA = ca
	if err := p.Validate(); err != nil {
		t.Fatalf("an RSA CA no longer validates: %v", err)
	}
	out, err := Sign(csrPEM(t, pkix.Name{CommonName: "admin"}), ca, DefaultSignPolicy(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(out)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(der)
	if err := cert.CheckSignatureFrom(caCert); err != nil || cert.SignatureAlgorithm != x509.SHA256WithRSA {
		t.Fatalf("signed by the RSA CA: %v, %s", err, cert.SignatureAlgorithm)
	}
}
