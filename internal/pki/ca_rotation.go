package pki

import (
	"bytes"
	"crypto/rand"
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
// CA, new key); the trust phase commits the result.
//
// There is deliberately no certificate of the new CA cross-signed by the
// old one: keel's CAs carry pathlen:0 (newCA), and Go's crypto/x509
// (kubectl, client-go, Cluster API, the kubelets) counts such a
// certificate as an intermediate below the old root and refuses the chain
// (too many intermediates). Instead the API servers keep serving what the
// old CA signed until the finish phase, while every machine already trusts
// both CAs (KubernetesCASecret, CASignerSecret).
func (p *ClusterPKI) BeginCARotation(now time.Time) error {
	return p.beginCARotation(rand.Reader, now)
}

func (p *ClusterPKI) beginCARotation(r io.Reader, now time.Time) error {
	if p.NextCA != nil {
		return errors.New("a CA rotation is already begun")
	}
	old, _, err := p.CA.Parse()
	if err != nil {
		return fmt.Errorf("ca: %w", err)
	}
	next, err := newCA(r, old.Subject.CommonName, now)
	if err != nil {
		return err
	}
	p.NextCA = &next
	return nil
}

// FinishCARotation makes the new CA the CA and drops the old one: the
// finish phase commits the result.
func (p *ClusterPKI) FinishCARotation() error {
	if p.NextCA == nil {
		return errors.New("no CA rotation is begun")
	}
	p.CA, p.NextCA = *p.NextCA, nil
	return nil
}

// rotating reports whether phase uses the rotation's certificates: only
// the trust and sign phases, and only when a rotation is begun (finish
// has already made the new CA the CA).
func (p *ClusterPKI) rotating(phase string) bool {
	return p.NextCA != nil && (phase == CAPhaseTrust || phase == CAPhaseSign)
}

// KubernetesCASecret is the tls.crt/tls.key of the <stack>-ca Secret in a
// phase. Cluster API and kubeadm sign with the first certificate of
// tls.crt and tls.key, and install all of tls.crt as the machines' ca.crt
// (the kubelets' and kube-apiserver's client CA, kube-root-ca.crt). In the
// trust and sign phases it is old ‖ new with the old key: every machine
// trusts both CAs, and the API servers still serve certificates the old CA
// signed, so clients that trust only the old CA keep working until finish.
// What must be signed by the new CA in the sign phase is signed by
// kube-controller-manager with CASignerSecret.
func (p *ClusterPKI) KubernetesCASecret(phase string) KeyPair {
	if !p.rotating(phase) {
		return p.CA
	}
	return KeyPair{Cert: concatPEM(p.CA.Cert, p.NextCA.Cert), Key: p.CA.Key}
}

// CASignerSecret is the key pair of the <stack>-ca-signer Secret, which
// exists in the sign phase only: kube-controller-manager signs the
// kubelets' client certificates with it (cluster-signing-cert-file), so
// that machines bootstrapped in the finish rollout hold certificates of
// the new CA. nil in every other phase.
func (p *ClusterPKI) CASignerSecret(phase string) *KeyPair {
	if p.rotating(phase) && phase == CAPhaseSign {
		return p.NextCA
	}
	return nil
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
	if next := p.CASignerSecret(phase); next != nil {
		return next
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
