package pki

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"time"
)

// Phases of a Kubernetes CA rotation. They are intent.CAPhaseTrust,
// CAPhaseSign and CAPhaseFinish, spelled out again here because pki must
// not import intent (intent's documents embed pki's): keep the values equal.
// "" is a cluster never rotated.
const (
	CAPhaseTrust  = "trust"
	CAPhaseSign   = "sign"
	CAPhaseFinish = "finish"
)

// BeginCARotation makes the new Kubernetes CA (NextCA, same common name as
// CA, new key) and CrossCA, the new CA's certificate signed by the old CA,
// which lets clients that trust only the old CA verify what the new one
// signs. The trust phase commits the result.
func (p *ClusterPKI) BeginCARotation(now time.Time) error {
	return p.beginCARotation(rand.Reader, now)
}

func (p *ClusterPKI) beginCARotation(r io.Reader, now time.Time) error {
	if p.NextCA != nil || len(p.CrossCA) > 0 {
		return errors.New("a CA rotation is already begun")
	}
	old, oldKey, err := p.CA.Parse()
	if err != nil {
		return fmt.Errorf("ca: %w", err)
	}
	next, err := newCA(r, old.Subject.CommonName, now)
	if err != nil {
		return err
	}
	cross, err := crossSign(r, next, old, oldKey)
	if err != nil {
		return err
	}
	p.NextCA, p.CrossCA = &next, cross
	return nil
}

// FinishCARotation makes the new CA the CA and drops the old one and the
// cross-signed certificate: the finish phase commits the result.
func (p *ClusterPKI) FinishCARotation() error {
	if p.NextCA == nil {
		return errors.New("no CA rotation is begun")
	}
	p.CA, p.NextCA, p.CrossCA = *p.NextCA, nil, nil
	return nil
}

// crossSign certifies next's subject, key and key identifier with the old
// CA, no longer than the old CA lives (a certificate outliving its issuer
// would not verify anyway).
func crossSign(r io.Reader, next KeyPair, old *x509.Certificate, oldKey crypto.Signer) ([]byte, error) {
	nc, _, err := next.Parse()
	if err != nil {
		return nil, err
	}
	serial, err := randomSerial(r)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, RawSubject: nc.RawSubject, SubjectKeyId: nc.SubjectKeyId,
		NotBefore: nc.NotBefore, NotAfter: nc.NotAfter, KeyUsage: nc.KeyUsage,
		BasicConstraintsValid: true, IsCA: true, MaxPathLen: nc.MaxPathLen, MaxPathLenZero: nc.MaxPathLenZero,
	}
	// Set explicitly: Go fills it from the parent only when issuer and
	// subject differ, and without it OpenSSL takes this certificate, whose
	// issuer is its subject, for a self-signed one and rejects the chain.
	tmpl.AuthorityKeyId = old.SubjectKeyId
	if old.NotAfter.Before(tmpl.NotAfter) {
		tmpl.NotAfter = old.NotAfter
	}
	// The issuer comes from old.
	der, err := x509.CreateCertificate(r, tmpl, old, nc.PublicKey, oldKey)
	if err != nil {
		return nil, fmt.Errorf("cross-signing the new CA: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// validateCross checks that a rotation carries both the new CA and the
// cross-signed certificate, and that the latter certifies the new CA's key
// under the old CA.
func (p *ClusterPKI) validateCross() error {
	if (p.NextCA == nil) != (len(p.CrossCA) == 0) {
		return errors.New("cross_ca: next_ca and cross_ca go together")
	}
	if p.NextCA == nil {
		return nil
	}
	cross, err := parseCertPEM(p.CrossCA)
	if err != nil {
		return fmt.Errorf("cross_ca: %w", err)
	}
	next, _, _ := p.NextCA.Parse() // parsed by Validate already
	old, _, _ := p.CA.Parse()
	switch {
	case !cross.IsCA:
		return errors.New("cross_ca: certificate is not a CA")
	case !publicKeysEqual(cross.PublicKey, next.PublicKey):
		return errors.New("cross_ca: not the key of next_ca")
	}
	if err := cross.CheckSignatureFrom(old); err != nil {
		return fmt.Errorf("cross_ca: not signed by ca: %w", err)
	}
	return nil
}

func parseCertPEM(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("certificate is not a PEM CERTIFICATE")
	}
	return x509.ParseCertificate(block.Bytes)
}

// rotating reports whether phase uses the rotation's certificates: only
// the trust and sign phases, and only when a rotation is begun (finish
// has already made the new CA the CA).
func (p *ClusterPKI) rotating(phase string) bool {
	return p.NextCA != nil && (phase == CAPhaseTrust || phase == CAPhaseSign)
}

// KubernetesCASecret is the tls.crt/tls.key of the <stack>-ca Secret in a
// phase. Cluster API signs with the first certificate of tls.crt and
// tls.key, and installs all of tls.crt as the machines' ca.crt (trusted by
// the kubelets and as kube-apiserver's client CA): in the trust phase the
// old CA signs and both are trusted; in the sign phase the new key signs
// under the cross-signed certificate, and the old CA is still trusted.
func (p *ClusterPKI) KubernetesCASecret(phase string) KeyPair {
	if !p.rotating(phase) {
		return p.CA
	}
	if phase == CAPhaseTrust {
		return KeyPair{Cert: concatPEM(p.CA.Cert, p.NextCA.Cert), Key: p.CA.Key}
	}
	return KeyPair{Cert: concatPEM(p.CrossCA, p.CA.Cert, p.NextCA.Cert), Key: p.NextCA.Key}
}

// TrustBundle is the CA certificates clients should trust in a phase (GET
// /v1/certificates): the one that signs first, both while rotating.
func (p *ClusterPKI) TrustBundle(phase string) []byte {
	if !p.rotating(phase) {
		return p.CA.Cert
	}
	if phase == CAPhaseTrust {
		return concatPEM(p.CA.Cert, p.NextCA.Cert)
	}
	return concatPEM(p.NextCA.Cert, p.CA.Cert)
}

// SigningCA is the Kubernetes CA that signs in a phase (POST
// /v1/certificates): the new one from the sign phase on.
func (p *ClusterPKI) SigningCA(phase string) *KeyPair {
	if p.rotating(phase) && phase == CAPhaseSign {
		return p.NextCA
	}
	return &p.CA
}

// concatPEM joins PEM documents, each ending in a newline.
func concatPEM(docs ...[]byte) []byte {
	var b bytes.Buffer
	for _, d := range docs {
		b.Write(d)
		if len(d) > 0 && d[len(d)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
