package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"sync"
	"testing"
	"time"
)

var (
	testPKIOnce sync.Once
	testPKI     *ClusterPKI
	testPKIErr  error
)

// sharedPKI generates one cluster PKI for the package's tests.
func sharedPKI(t testing.TB) *ClusterPKI {
	t.Helper()
	testPKIOnce.Do(func() { testPKI, testPKIErr = Generate("prod-a", time.Now()) })
	if testPKIErr != nil {
		t.Fatal(testPKIErr)
	}
	return testPKI
}

// csrPEM makes a CSR with the given subject and extensions (ECDSA keeps it
// fast).
func csrPEM(t testing.TB, subject pkix.Name, exts ...pkix.Extension) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject, ExtraExtensions: exts}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func parseCert(t testing.TB, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("not PEM: %q", data)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
