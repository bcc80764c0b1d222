package pki

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
	"time"
)

// Whatever bytes arrive as a CSR, parsing and signing never panic, and a
// certificate is only issued for a CSR that parses.
func FuzzSignCSR(f *testing.F) {
	p := sharedPKI(f)
	f.Add(csrPEM(f, pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}}))
	f.Add(csrPEM(f, pkix.Name{CommonName: "x"}, pkix.Extension{Id: asn1.ObjectIdentifier{2, 5, 29, 15}, Critical: true, Value: []byte{0x03, 0x02, 0x05, 0xa0}}))
	f.Add([]byte("-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, perr := ParseCSR(data)
		out, err := Sign(data, p.CA, DefaultSignPolicy(), time.Now())
		if perr != nil && err == nil {
			t.Fatalf("signed a CSR that does not parse: %v", perr)
		}
		if err == nil {
			parseCert(t, out)
		} else if perr != nil && !IsPolicyError(err) {
			t.Fatalf("unparseable CSR gave a non-client error: %v", err)
		}
	})
}
