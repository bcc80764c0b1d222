package compiler

import (
	"bytes"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/pki"
)

// The <stack_id>-ca-signer Secret (the new CA, which kube-controller-manager
// signs with) is rendered in a CA rotation's sign phase only: an Opaque
// Secret beside the other CA Secrets, labelled with the cluster.
func TestCASignerSecretOnlyInSignPhase(t *testing.T) {
	base := secretsInput(t).Secrets.PKI
	rotated := *base
	if err := rotated.BeginCARotation(time.Now()); err != nil {
		t.Fatal(err)
	}
	finished := rotated
	if err := finished.FinishCARotation(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		pki   *pki.ClusterPKI
		phase string
		want  bool
	}{
		{"never rotated", base, "", false},
		{"trust", &rotated, intent.CAPhaseTrust, false},
		{"sign", &rotated, intent.CAPhaseSign, true},
		{"finish", &finished, intent.CAPhaseFinish, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := rotationInput(t, c.pki, c.phase)
			got := renderedSecret(t, in, SecretFilePrefix+CASignerPurpose+".yaml")
			if (got != nil) != c.want {
				t.Fatalf("ca-signer Secret rendered: %t, want %t", got != nil, c.want)
			}
			if got != nil {
				checkCASigner(t, got, in.Cluster.StackID, *rotated.NextCA)
			}
		})
	}
}

func checkCASigner(t *testing.T, s *corev1.Secret, stack string, next pki.KeyPair) {
	t.Helper()
	if s.Name != stack+"-ca-signer" || s.Namespace != kube.Namespace || s.Labels[LabelCAPIClusterName] != stack || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("ca-signer Secret %s/%s, labels %v, type %s", s.Namespace, s.Name, s.Labels, s.Type)
	}
	if !bytes.Equal(s.Data[corev1.TLSCertKey], next.Cert) || !bytes.Equal(s.Data[corev1.TLSPrivateKeyKey], next.Key) {
		t.Error("ca-signer Secret does not hold the new CA")
	}
}
