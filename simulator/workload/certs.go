package workload

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"

	"github.com/openkeel/keel/internal/pki"
)

// leafValidity covers any simulation run; the simulated machines' certificates
// are never seen outside this process tree.
const leafValidity = 365 * 24 * time.Hour

// leaf is a certificate and its key in PEM, as the programs that read them
// (kube-apiserver flags, tls.X509KeyPair) want them.
type leaf struct {
	Cert, Key []byte
}

// TLS returns the pair as a tls.Certificate.
func (l leaf) TLS() (tls.Certificate, error) { return tls.X509KeyPair(l.Cert, l.Key) }

// leafSpec says what a certificate is for, as kubeadm's certificate list
// says it (common name, organisation, usages, SANs).
type leafSpec struct {
	CommonName   string
	Organization []string
	DNSNames     []string
	IPs          []net.IP
	Server       bool
	Client       bool
}

// issue signs a new leaf certificate with the CA, the way kubeadm issues the
// apiserver, kubelet-client and etcd certificates from the cluster's CAs.
// ca.Cert may be a bundle (a CA rotation's tls.crt): like kubeadm, the
// first certificate is the issuer (pki.KeyPair.Parse reads only the first
// PEM block) and ca.Key the key that signs.
// ECDSA P-256 keys: fast to make, and every Go and Kubernetes TLS stack takes
// them; the CAs themselves stay the cluster's RSA ones.
func issue(ca pki.KeyPair, s leafSpec) (leaf, error) {
	caCert, caKey, err := ca.Parse()
	if err != nil {
		return leaf{}, fmt.Errorf("parsing the CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return leaf{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return leaf{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: s.CommonName, Organization: s.Organization},
		DNSNames:     s.DNSNames,
		IPAddresses:  s.IPs,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	if s.Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if s.Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, key.Public(), caKey)
	if err != nil {
		return leaf{}, fmt.Errorf("signing %s: %w", s.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return leaf{}, err
	}
	return leaf{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// parseBundle decodes every certificate of a PEM bundle (a CA Secret's
// tls.crt, one certificate or, during a CA rotation, several), in order.
func parseBundle(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("unexpected PEM block %q in a certificate bundle", block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM CERTIFICATE in the bundle")
	}
	return certs, nil
}

// selfSigned makes a throw-away CA for the simulated kubelets' serving
// certificates (kube-apiserver does not verify them unless told to, as with
// kubeadm's default of self-signed kubelet certificates).
func selfSigned(cn string) (pki.KeyPair, error) {
	p, err := pki.Generate(cn, time.Now())
	if err != nil {
		return pki.KeyPair{}, err
	}
	return p.CA, nil
}
