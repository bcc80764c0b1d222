package reconciler

import (
	"bytes"
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/repo"
)

// The rendered Secrets are SOPS-encrypted in Git; the reconciler decrypts
// them in memory and applies the plaintext: the management cluster holds
// the cluster's real CA key pairs and clouds.yaml. Without the identity the
// folder fails to apply instead of applying ciphertext.
func TestReconcilerAppliesDecryptedSecrets(t *testing.T) {
	f := newFixture(t)
	kr, _, err := secrets.GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	st := f.cluster("sealed", 1)
	_, err = f.store.Update(context.Background(), func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		changes, err := repo.WriteCluster(sn, &f.tmpl, st, intent.Facts{},
			repo.WithSecrets(&repo.Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.org/v3"}}))
		if err != nil {
			return nil, err
		}
		return &gitstore.Commit{Subject: "sealed", Author: gitstore.Signature{Name: "t", Email: "t@x"}, Changes: changes}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sn, err := f.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	want, err := repo.LoadPKI(sn, st.Dir, kr)
	if err != nil {
		t.Fatal(err)
	}

	// No identity: the folder is not applied (and the error says why).
	f.rec.Sync(context.Background())
	f.sink.mu.Lock()
	noKeyErr := f.sink.errors[st.Cluster.UUID]
	f.sink.mu.Unlock()
	if noKeyErr == nil {
		t.Fatal("a folder with encrypted Secrets applied without an identity")
	}

	f.rec.o.Keyring = kr
	f.rec.pending[st.Dir] = &retry{}
	ctx := context.Background()
	var ca corev1.Secret
	f.eventually("the CA Secret", func() bool {
		return env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID + "-ca"}, &ca) == nil
	})
	if !bytes.Equal(ca.Data["tls.key"], want.CA.Key) || !bytes.Equal(ca.Data["tls.crt"], want.CA.Cert) {
		t.Error("the applied CA Secret does not hold the cluster's CA key pair")
	}
	if string(ca.Type) != compiler.ClusterSecretType || ca.Labels[compiler.LabelCAPIClusterName] != st.Cluster.StackID {
		t.Errorf("CA Secret type %s labels %v", ca.Type, ca.Labels)
	}
	for _, suffix := range []string{"-etcd", "-proxy", "-sa", "-cloud-config"} {
		var s corev1.Secret
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID + suffix}, &s); err != nil {
			t.Errorf("Secret %s%s: %v", st.Cluster.StackID, suffix, err)
			continue
		}
		for k, v := range s.Data {
			if bytes.Contains(v, []byte("ENC[AES256_GCM")) {
				t.Errorf("%s%s: %s holds ciphertext", st.Cluster.StackID, suffix, k)
			}
		}
	}
}
