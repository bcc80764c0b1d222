package pki

import (
	"bytes"
	"crypto/x509"
	"testing"
	"time"
)

// The three CAs are distinct, self-signed ECDSA P-256 CAs named after the
// cluster, valid from a day back for ten years, restricted to signing end
// entities; the service-account pair matches; Validate accepts them all.
func TestGeneratedCAs(t *testing.T) {
	before := time.Now()
	p := sharedPKI(t)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for name, kp := range map[string]KeyPair{"ca": p.CA, "etcd": p.EtcdCA, "proxy": p.FrontProxyCA} {
		cert, _, err := kp.Parse()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if seen[string(cert.Raw)] {
			t.Errorf("%s: same certificate as another CA", name)
		}
		seen[string(cert.Raw)] = true
		if !cert.IsCA || !cert.BasicConstraintsValid || cert.MaxPathLen != 0 || !cert.MaxPathLenZero {
			t.Errorf("%s: basic constraints IsCA=%v maxPathLen=%d", name, cert.IsCA, cert.MaxPathLen)
		}
		if cert.KeyUsage&x509.KeyUsageCertSign == 0 {
			t.Errorf("%s: no certSign key usage", name)
		}
		if cert.Subject.CommonName != "prod-a" || !bytes.Equal(cert.RawSubject, cert.RawIssuer) {
			t.Errorf("%s: subject %s issuer %s", name, cert.Subject, cert.Issuer)
		}
		if err := cert.CheckSignatureFrom(cert); err != nil {
			t.Errorf("%s: not self-signed: %v", name, err)
		}
		if cert.PublicKeyAlgorithm != x509.ECDSA || cert.SignatureAlgorithm != x509.ECDSAWithSHA256 {
			t.Errorf("%s: %s / %s", name, cert.PublicKeyAlgorithm, cert.SignatureAlgorithm)
		}
		if got := cert.NotAfter.Sub(cert.NotBefore); got < CAValidity || got > CAValidity+backdate+time.Minute {
			t.Errorf("%s: validity %s", name, got)
		}
		if cert.NotBefore.After(before.Add(-23 * time.Hour)) {
			t.Errorf("%s: notBefore %s is not backdated", name, cert.NotBefore)
		}
	}
	for _, typ := range []string{"", CATypeKubernetes, CATypeEtcd, CATypeFrontProxy, "front-proxy"} {
		if _, err := p.CAFor(typ); err != nil {
			t.Errorf("CAFor(%q): %v", typ, err)
		}
	}
	if _, err := p.CAFor("bogus"); err == nil {
		t.Error("CAFor(bogus) succeeded")
	}
	// A mismatched pair is caught.
	broken := *p
	broken.EtcdCA.Key = p.CA.Key
	if err := broken.Validate(); err == nil {
		t.Error("Validate accepted a CA whose key does not match")
	}
}
