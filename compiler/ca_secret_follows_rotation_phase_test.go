package compiler

import (
	"bytes"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/pki"
)

// The <stack_id>-ca Secret carries the bundle and key of the cluster's CA
// rotation phase (the sign phase keeps the trust phase's, so that the API
// servers keep serving what the old CA signed); a cluster never rotated renders exactly what it did
// before rotations existed, and so does a finished rotation's key document
// (its new CA is the CA).
func TestCASecretFollowsRotationPhase(t *testing.T) {
	base := secretsInput(t).Secrets.PKI
	rotated := *base
	if err := rotated.BeginCARotation(time.Now()); err != nil {
		t.Fatal(err)
	}
	finished := rotated
	if err := finished.FinishCARotation(); err != nil {
		t.Fatal(err)
	}
	old, next := base.CA, *rotated.NextCA
	cat := func(pems ...[]byte) []byte { return bytes.Join(pems, nil) }
	for _, c := range []struct {
		name  string
		pki   *pki.ClusterPKI
		phase string // "": CARotation nil
		want  pki.KeyPair
	}{
		{"never rotated", base, "", old},
		{"trust", &rotated, intent.CAPhaseTrust, pki.KeyPair{Cert: cat(old.Cert, next.Cert), Key: old.Key}},
		{"sign", &rotated, intent.CAPhaseSign, pki.KeyPair{Cert: cat(old.Cert, next.Cert), Key: old.Key}},
		{"finish", &finished, intent.CAPhaseFinish, next},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := renderedCASecret(t, rotationInput(t, c.pki, c.phase))
			if !bytes.Equal(got.Data[corev1.TLSCertKey], c.want.Cert) || !bytes.Equal(got.Data[corev1.TLSPrivateKeyKey], c.want.Key) {
				t.Errorf("tls.crt:\n%s\nwant:\n%s", got.Data[corev1.TLSCertKey], c.want.Cert)
			}
		})
	}
}

// A phase that does not match the key document (trust or sign without
// the new CA, finish with the new CA not yet the CA) is an error, not a
// rendering of another phase.
func TestCASecretRefusesPhaseNotMatchingKeyMaterial(t *testing.T) {
	rotated := *secretsInput(t).Secrets.PKI
	if err := rotated.BeginCARotation(time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pki   *pki.ClusterPKI
		phase string
	}{
		{secretsInput(t).Secrets.PKI, intent.CAPhaseTrust},
		{secretsInput(t).Secrets.PKI, intent.CAPhaseSign},
		{&rotated, intent.CAPhaseFinish},
	} {
		_, err := Compile(rotationInput(t, c.pki, c.phase))
		if err == nil || !strings.Contains(err.Error(), "does not match the key material") {
			t.Errorf("%s: %v", c.phase, err)
		}
	}
}

// rotationInput is secretsInput with p as key material and, unless phase
// is "", a first rotation in that phase.
func rotationInput(t *testing.T, p *pki.ClusterPKI, phase string) Input {
	t.Helper()
	in := secretsInput(t)
	secrets := *in.Secrets
	secrets.PKI = p
	in.Secrets = &secrets
	if phase != "" {
		in.Cluster.CARotation = &intent.CARotation{Generation: 1, Phase: phase}
	}
	return in
}

func renderedCASecret(t *testing.T, in Input) corev1.Secret {
	t.Helper()
	s := renderedSecret(t, in, "secret-ca.yaml")
	if s == nil {
		t.Fatal("no secret-ca.yaml")
	}
	return *s
}

// renderedSecret is the Secret in file of in's compilation, nil if none.
func renderedSecret(t *testing.T, in Input, file string) *corev1.Secret {
	t.Helper()
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Path == file {
			var s corev1.Secret
			if err := yaml.Unmarshal(d.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
			return &s
		}
	}
	return nil
}
