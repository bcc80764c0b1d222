package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
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

// issue signs a leaf for the API server's name with a CA key pair, as
// kubeadm signs apiserver.crt (server) or kube-controller-manager a
// kubelet's certificate (client).
func issue(t testing.TB, ca KeyPair, usage x509.ExtKeyUsage) *x509.Certificate {
	t.Helper()
	caCert, caKey, err := ca.Parse()
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "kubernetes"},
		DNSNames: []string{"kubernetes"}, NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// verify checks a leaf as a Go client (kubectl, client-go, a kubelet,
// kube-apiserver) trusting the CA certificates of roots would, with no
// intermediates.
func verify(t testing.TB, leaf *x509.Certificate, roots []byte, usage x509.ExtKeyUsage) error {
	t.Helper()
	_, err := leaf.Verify(x509.VerifyOptions{Roots: certPool(t, roots), KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}

// firstCert is the first certificate of a PEM bundle.
func firstCert(t testing.TB, bundle []byte) *x509.Certificate {
	t.Helper()
	return parseCert(t, bundle)
}
