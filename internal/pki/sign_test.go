package pki

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
	"time"
)

// A CSR like `openstack coe cluster config` sends (CN=admin,
// O=system:masters) gives a client certificate that verifies against the
// cluster CA, keeps the subject, lasts Magnum's five years and is not a CA.
func TestSignClientCertificate(t *testing.T) {
	p := sharedPKI(t)
	eku, _ := asn1.Marshal([]asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 2}})
	csr := csrPEM(t, pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		pkix.Extension{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Value: eku})
	out, err := Sign(csr, p.CA, DefaultSignPolicy(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert := parseCert(t, out)
	ca, _, _ := p.CA.Parse()
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatalf("signed certificate does not verify: %v", err)
	}
	if cert.Subject.CommonName != "admin" || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "system:masters" {
		t.Errorf("subject %s", cert.Subject)
	}
	if !bytes.Equal(cert.RawIssuer, ca.RawSubject) {
		t.Errorf("issuer %s, CA %s", cert.Issuer, ca.Subject)
	}
	if cert.IsCA {
		t.Error("signed certificate is a CA")
	}
	if got := cert.NotAfter.Sub(cert.NotBefore); got != DefaultLeafValidity+backdate {
		t.Errorf("validity %s", got)
	}
	// The etcd CA signs too, and the result does not verify against the
	// Kubernetes CA.
	etcdOut, err := Sign(csr, p.EtcdCA, DefaultSignPolicy(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseCert(t, etcdOut).Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err == nil {
		t.Error("an etcd-signed certificate verifies against the Kubernetes CA")
	}
}

// Garbage, a CSR with a broken signature and a weak RSA key are invalid.
func TestSignRejectsInvalidCSR(t *testing.T) {
	p := sharedPKI(t)
	for name, in := range map[string][]byte{
		"empty":   nil,
		"garbage": []byte("hello"),
		"cert":    p.CA.Cert,
	} {
		if _, err := Sign(in, p.CA, DefaultSignPolicy(), time.Now()); !IsPolicyError(err) {
			t.Errorf("%s: err = %v, want an invalid CSR", name, err)
		}
	}
	csr := csrPEM(t, pkix.Name{CommonName: "x"})
	parsed, _ := ParseCSR(csr)
	raw := bytes.Clone(parsed.Raw)
	raw[len(raw)-3] ^= 0xff // inside the signature
	bad := pemCSR(raw)
	if _, err := Sign(bad, p.CA, DefaultSignPolicy(), time.Now()); !IsPolicyError(err) {
		t.Errorf("bad signature: err = %v", err)
	}
}
