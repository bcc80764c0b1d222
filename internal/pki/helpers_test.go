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

var (
	rotatedOnce sync.Once
	rotated     *ClusterPKI
	rotatedErr  error
)

// rotatedPKI is a copy of sharedPKI with a CA rotation begun.
func rotatedPKI(t testing.TB) *ClusterPKI {
	t.Helper()
	base := *sharedPKI(t)
	rotatedOnce.Do(func() { rotatedErr = base.BeginCARotation(time.Now()); rotated = &base })
	if rotatedErr != nil {
		t.Fatal(rotatedErr)
	}
	p := *rotated
	return &p
}

// finishedPKI is rotatedPKI after FinishCARotation.
func finishedPKI(t testing.TB) *ClusterPKI {
	t.Helper()
	p := rotatedPKI(t)
	if err := p.FinishCARotation(); err != nil {
		t.Fatal(err)
	}
	return p
}

// leafSignedBy signs a client certificate for cn with a CA key pair.
func leafSignedBy(t testing.TB, ca KeyPair, cn string) *x509.Certificate {
	t.Helper()
	out, err := Sign(csrPEM(t, pkix.Name{CommonName: cn}), ca, DefaultSignPolicy(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return parseCert(t, out)
}

// certPool holds every certificate of a PEM bundle.
func certPool(t testing.TB, bundle ...[]byte) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	for _, b := range bundle {
		if !pool.AppendCertsFromPEM(b) {
			t.Fatalf("no certificate in %q", b)
		}
	}
	return pool
}

// firstCert is the first certificate of a PEM bundle.
func firstCert(t testing.TB, bundle []byte) *x509.Certificate {
	t.Helper()
	return parseCert(t, bundle)
}
