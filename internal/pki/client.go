package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"time"
)

// ClientValidity is how long IssueClient's certificates are valid: Cluster
// API's for the admin kubeconfig it makes (a year; KubeadmControlPlane
// renews it when less than six months are left).
const ClientValidity = 365 * 24 * time.Hour

// IssueClient makes a client certificate for cn in the organizations orgs
// signed by ca (the first certificate of ca.Cert and ca.Key), with a new
// P-256 key: the identity of a kubeconfig keel writes itself (Cluster API's
// admin kubeconfig during a CA rotation).
func IssueClient(ca KeyPair, cn string, orgs []string, now time.Time) (cert, key []byte, err error) {
	caCert, caKey, err := ca.Parse()
	if err != nil {
		return nil, nil, fmt.Errorf("parsing the CA: %w", err)
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := randomSerial(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    now.Add(-backdate).UTC(),
		NotAfter:     now.Add(ClientValidity).UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing the client certificate of %s: %w", cn, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// SignedBy reports whether the first certificate of certPEM verifies with
// the first certificate of caPEM as its issuer.
func SignedBy(certPEM, caPEM []byte) bool {
	cb, _ := pem.Decode(certPEM)
	ab, _ := pem.Decode(caPEM)
	if cb == nil || ab == nil {
		return false
	}
	c, err1 := x509.ParseCertificate(cb.Bytes)
	a, err2 := x509.ParseCertificate(ab.Bytes)
	return err1 == nil && err2 == nil && c.CheckSignatureFrom(a) == nil
}
