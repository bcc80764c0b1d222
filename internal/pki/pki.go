// Package pki generates a cluster's certificate authorities and signs
// certificate requests the way Magnum does.
//
// Every Magnum cluster has three CAs — Kubernetes, etcd and front-proxy —
// and a service-account key pair. With the Cluster API driver they are the
// kubeadm CAs of the workload cluster (Secrets <stack_id>-ca, -etcd, -proxy,
// -sa), so a certificate signed through POST /v1/certificates is valid for
// the cluster's API server. keel generates them at API time (cluster create)
// and stores them SOPS-encrypted in Git (see internal/secrets).
//
// Key type: ECDSA P-256 with SHA-256 signatures for the CAs and the
// service-account key. Magnum ([x509] rsa_key_size) and Cluster API make
// RSA-2048 keys; generating four of them was three quarters of the cost of
// a cluster create (tens of milliseconds each: two cores make only a few
// dozen a second), against tens of microseconds for P-256. Everything that reads them
// accepts ECDSA: kubeadm (its own encryptionAlgorithm ECDSA-P256 makes the
// same keys), kube-apiserver's service-account signing (ES256), Cluster
// API's kubeconfig generation (any crypto.Signer), and clients, which only
// verify the chain; certificates signed from users' CSRs keep the CSR's
// key, RSA or not. Clusters created before keep their RSA keys: keys are
// never regenerated.
package pki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // RFC 5280 §4.2.1.2 method 1 key identifier, not a security use
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"time"
)

// Validity periods.
const (
	// CAValidity is how long a generated CA is valid: ten years, kubeadm's
	// and Cluster API's CA lifetime. Magnum uses [x509] term_of_validity
	// (five years) for its CAs too; keel rotates only the Kubernetes CA,
	// and only on request (PATCH /v1/certificates, ca_rotation.go; the
	// Cluster API driver cannot rotate any), so the longer kubeadm period
	// avoids clusters dying of an expired CA after five years.
	CAValidity = 10 * 365 * 24 * time.Hour
	// DefaultLeafValidity is Magnum's [x509] term_of_validity default
	// (365*5 days) for certificates signed from CSRs.
	DefaultLeafValidity = 5 * 365 * 24 * time.Hour
	// backdate is subtracted from notBefore, as Magnum does (one day), so
	// that a client whose clock is behind still accepts a fresh certificate.
	backdate = 24 * time.Hour
)

// CA types, as Magnum's ca_cert_type names them.
const (
	CATypeKubernetes = "kubernetes"
	CATypeEtcd       = "etcd"
	CATypeFrontProxy = "front_proxy"
)

// CATypes lists the CA types in the order error messages name them.
var CATypes = []string{CATypeKubernetes, CATypeEtcd, CATypeFrontProxy}

// KeyPair is a PEM certificate (or, for the service-account pair, a PEM
// public key) and its PEM private key, in the encodings kubeadm and Cluster
// API read: "CERTIFICATE" / "PUBLIC KEY" (PKIX) and "EC PRIVATE KEY"
// (SEC 1, as kubeadm writes ECDSA keys; older clusters' "RSA PRIVATE KEY",
// PKCS #1, are read too).
type KeyPair struct {
	Cert []byte `json:"cert"`
	Key  []byte `json:"key"`
}

// ClusterPKI is the key material of one cluster.
type ClusterPKI struct {
	CA             KeyPair `json:"ca"`
	EtcdCA         KeyPair `json:"etcd_ca"`
	FrontProxyCA   KeyPair `json:"front_proxy_ca"`
	ServiceAccount KeyPair `json:"service_account"`
	// NextCA exists only while the Kubernetes CA is being rotated
	// (ca_rotation.go): the new CA. omitempty keeps the documents of
	// clusters never rotated as they were.
	NextCA *KeyPair `json:"next_ca,omitempty"`
}

// Generate makes the CAs and service-account key of a cluster. subject is
// the CAs' common name: Magnum uses the cluster name.
func Generate(subject string, now time.Time) (*ClusterPKI, error) {
	return generate(rand.Reader, subject, now)
}

func generate(r io.Reader, subject string, now time.Time) (*ClusterPKI, error) {
	var p ClusterPKI
	var err error
	if p.CA, err = newCA(r, subject, now); err != nil {
		return nil, err
	}
	if p.EtcdCA, err = newCA(r, subject, now); err != nil {
		return nil, err
	}
	if p.FrontProxyCA, err = newCA(r, subject, now); err != nil {
		return nil, err
	}
	if p.ServiceAccount, err = newServiceAccountKey(r); err != nil {
		return nil, err
	}
	return &p, nil
}

// CAFor returns the CA of a Magnum ca_cert_type ("" is kubernetes; Magnum
// also accepts "front-proxy").
func (p *ClusterPKI) CAFor(caType string) (*KeyPair, error) {
	switch caType {
	case "", CATypeKubernetes:
		return &p.CA, nil
	case CATypeEtcd:
		return &p.EtcdCA, nil
	case CATypeFrontProxy, "front-proxy":
		return &p.FrontProxyCA, nil
	}
	return nil, fmt.Errorf("unknown CA type %q", caType)
}

// Validate checks that every CA certificate matches its key and is a CA,
// and that the service-account keys match: a document edited by hand (or
// corrupted) is caught before its keys are handed to kubeadm.
func (p *ClusterPKI) Validate() error {
	cas := map[string]KeyPair{"ca": p.CA, "etcd_ca": p.EtcdCA, "front_proxy_ca": p.FrontProxyCA}
	if p.NextCA != nil {
		cas["next_ca"] = *p.NextCA
	}
	for name, kp := range cas {
		if err := validateCA(kp); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return p.validateServiceAccount()
}

// validateCA checks that a CA key pair parses, is a CA and matches.
func validateCA(kp KeyPair) error {
	cert, key, err := kp.Parse()
	if err != nil {
		return err
	}
	if !cert.IsCA {
		return errors.New("certificate is not a CA")
	}
	if !publicKeysEqual(cert.PublicKey, key.Public()) {
		return errors.New("certificate and key do not match")
	}
	return nil
}

func (p *ClusterPKI) validateServiceAccount() error {
	key, err := ParseKey(p.ServiceAccount.Key)
	if err != nil {
		return fmt.Errorf("service_account: %w", err)
	}
	block, _ := pem.Decode(p.ServiceAccount.Cert)
	if block == nil || block.Type != "PUBLIC KEY" {
		return errors.New("service_account: public key is not a PEM PUBLIC KEY")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return fmt.Errorf("service_account: %w", err)
	}
	if !publicKeysEqual(pub, key.Public()) {
		return errors.New("service_account: public and private key do not match")
	}
	return nil
}

// Parse decodes a CA key pair.
func (kp KeyPair) Parse() (*x509.Certificate, crypto.Signer, error) {
	block, _ := pem.Decode(kp.Cert)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, nil, errors.New("certificate is not a PEM CERTIFICATE")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, nil, err
	}
	key, err := ParseKey(kp.Key)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// ParseKey decodes a PEM private key: PKCS #1 RSA, SEC 1 EC or
// unencrypted PKCS #8.
func ParseKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("private key is not PEM")
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("unsupported private key type %T", k)
		}
		return s, nil
	}
	return nil, fmt.Errorf("unsupported private key PEM type %q", block.Type)
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	ea, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && ea.Equal(b)
}

// newCA makes a self-signed CA as Magnum does (CN = subject, critical
// basicConstraints CA with path length 0, critical keyUsage certSign), plus
// digitalSignature (kubeadm's CAs carry it, and some TLS stacks want it on
// an issuer that signs OCSP/CRLs) and a subject key identifier so that
// issued certificates carry a matching authority key identifier.
func newCA(r io.Reader, subject string, now time.Time) (KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), r)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating a CA key: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return KeyPair{}, err
	}
	serial, err := randomSerial(r)
	if err != nil {
		return KeyPair{}, err
	}
	skid, err := keyID(&key.PublicKey)
	if err != nil {
		return KeyPair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: subject},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(CAValidity).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// pathlen:0: no intermediate CA below. This is why a CA rotation
		// uses no cross-signed certificate (ca_rotation.go).
		MaxPathLen:     0,
		MaxPathLenZero: true,
		SubjectKeyId:   skid,
	}
	der, err := x509.CreateCertificate(r, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("self-signing a CA: %w", err)
	}
	return KeyPair{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// newServiceAccountKey makes the key pair the API server signs
// service-account tokens with; Cluster API's -sa Secret carries the public
// key as tls.crt.
func newServiceAccountKey(r io.Reader) (KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), r)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating the service-account key: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return KeyPair{}, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return KeyPair{}, err
	}
	return KeyPair{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// randomSerial is a positive 128-bit serial, as Magnum's int(uuid4()).
func randomSerial(r io.Reader) (*big.Int, error) {
	serial, err := rand.Int(r, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("generating a serial number: %w", err)
	}
	return serial.Add(serial, big.NewInt(1)), nil
}

// keyID is the SHA-1 of the subjectPublicKey bit string (RFC 5280 method 1).
func keyID(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(der, &spki); err != nil {
		return nil, err
	}
	sum := sha1.Sum(spki.PublicKey.Bytes) //nolint:gosec // identifier, not integrity
	return sum[:], nil
}

// Equal reports whether two key pairs hold the same bytes.
func (kp KeyPair) Equal(o KeyPair) bool {
	return bytes.Equal(kp.Cert, o.Cert) && bytes.Equal(kp.Key, o.Key)
}
