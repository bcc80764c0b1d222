package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"testing"
	"time"
)

func pemCSR(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func keyUsageExt(t *testing.T, critical bool, bits ...int) pkix.Extension {
	t.Helper()
	v, err := asn1.Marshal(namedBits(bits))
	if err != nil {
		t.Fatal(err)
	}
	return pkix.Extension{Id: oidKeyUsage, Critical: critical, Value: v}
}

func basicConstraintsExt(t *testing.T, critical, ca bool) pkix.Extension {
	t.Helper()
	v, err := asn1.Marshal(basicConstraints{IsCA: ca, MaxPathLen: -1})
	if err != nil {
		t.Fatal(err)
	}
	return pkix.Extension{Id: oidBasicConstraints, Critical: critical, Value: v}
}

// Magnum's extension rules: a critical extension outside allowed_extensions,
// a critical disallowed key usage and a critical CA flag are refused with
// "Extension 'X' not allowed"; non-critical ones are silently dropped or
// cleared; allowed ones are kept.
func TestSignFiltersExtensions(t *testing.T) {
	p := sharedPKI(t)
	nameConstraints := asn1.ObjectIdentifier{2, 5, 29, 30}
	refused := map[string]pkix.Extension{
		"nameConstraints":  {Id: nameConstraints, Critical: true, Value: []byte{0x30, 0x00}},
		"keyUsage":         keyUsageExt(t, true, 0, 5), // digitalSignature + certSign
		"basicConstraints": basicConstraintsExt(t, true, true),
		"1.2.3.4":          {Id: asn1.ObjectIdentifier{1, 2, 3, 4}, Critical: true, Value: []byte{0x05, 0x00}},
	}
	for want, ext := range refused {
		_, err := Sign(csrPEM(t, pkix.Name{CommonName: "x"}, ext), p.CA, DefaultSignPolicy(), time.Now())
		var ee *ExtensionError
		if !errors.As(err, &ee) || err.Error() != "Extension '"+want+"' not allowed" {
			t.Errorf("%s: err = %v", want, err)
		}
	}

	out, err := Sign(csrPEM(t, pkix.Name{CommonName: "x"},
		pkix.Extension{Id: nameConstraints, Value: []byte{0x30, 0x00}}, // dropped
		keyUsageExt(t, false, 0, 2, 5, 6),                              // certSign, cRLSign cleared
		basicConstraintsExt(t, false, true),                            // CA flag cleared
		pkix.Extension{Id: asn1.ObjectIdentifier{2, 5, 29, 17}, Value: mustSAN(t)},
	), p.CA, DefaultSignPolicy(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert := parseCert(t, out)
	if cert.IsCA || cert.KeyUsage != x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment {
		t.Errorf("IsCA %v KeyUsage %b", cert.IsCA, cert.KeyUsage)
	}
	if len(cert.PermittedDNSDomains) > 0 || hasExt(cert, nameConstraints) {
		t.Error("nameConstraints was kept")
	}
	if len(cert.DNSNames) != 1 || cert.DNSNames[0] != "api.example.org" {
		t.Errorf("subjectAltName lost: %v", cert.DNSNames)
	}

	// With allow_ca the CA flag and certSign pass.
	pol := DefaultSignPolicy()
	pol.AllowCA = true
	pol.AllowedKeyUsage = append(pol.AllowedKeyUsage, "Certificate Sign")
	out, err = Sign(csrPEM(t, pkix.Name{CommonName: "sub"}, basicConstraintsExt(t, true, true), keyUsageExt(t, true, 5)), p.CA, pol, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if c := parseCert(t, out); !c.IsCA || c.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Errorf("allow_ca: IsCA %v KeyUsage %b", c.IsCA, c.KeyUsage)
	}
}

func mustSAN(t *testing.T) []byte {
	t.Helper()
	v, err := asn1.Marshal([]asn1.RawValue{{Tag: 2, Class: asn1.ClassContextSpecific, Bytes: []byte("api.example.org")}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func hasExt(c *x509.Certificate, oid asn1.ObjectIdentifier) bool {
	for _, e := range c.Extensions {
		if e.Id.Equal(oid) {
			return true
		}
	}
	return false
}
