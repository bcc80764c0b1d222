package pki

import (
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

// Validate accepts a rotation's key material and rejects a new CA that
// does not fit: an edited or corrupted key document must not reach
// kubeadm.
func TestCARotationValidateChecksNextCA(t *testing.T) {
	p := rotatedPKI(t)
	other := rotatedFrom(t, p.CA) // another rotation of the same CA: another new key
	for _, c := range []struct {
		name string
		edit func(q *ClusterPKI)
		want string // "" accepts
	}{
		{"rotation as begun", func(*ClusterPKI) {}, ""},
		{"new CA with another key", func(q *ClusterPKI) { q.NextCA = &KeyPair{Cert: q.NextCA.Cert, Key: other.NextCA.Key} }, "next_ca: certificate and key do not match"},
		{"new CA not PEM", func(q *ClusterPKI) { q.NextCA = &KeyPair{Cert: []byte("junk"), Key: q.NextCA.Key} }, "next_ca:"},
		{"new CA not a CA", func(q *ClusterPKI) { q.NextCA = &KeyPair{Cert: leafPEM(t, *q.NextCA), Key: q.NextCA.Key} }, "next_ca: certificate is not a CA"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := *p
			c.edit(&q)
			err := q.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate: %v, want %q", err, c.want)
			}
		})
	}
}

// leafPEM is a certificate, not a CA, signed by ca.
func leafPEM(t *testing.T, ca KeyPair) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: issue(t, ca, x509.ExtKeyUsageClientAuth).Raw})
}
