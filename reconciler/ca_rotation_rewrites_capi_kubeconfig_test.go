package reconciler

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/pki"
)

// From the sign phase of a CA rotation on, the reconciler rewrites Cluster
// API's kubeconfig to trust the new CA and the old one and to hold a
// client certificate the new CA signed, once; the trust phase leaves it
// alone, and the finish phase keeps a kubeconfig the new CA signed.
func TestCARotationRewritesCAPIKubeconfig(t *testing.T) {
	ctx := context.Background()
	r := &Reconciler{client: env.Client, o: Options{Log: slog.New(slog.DiscardHandler)}, caFollowed: newLockedMap[string, string]()}
	old, next := testCA(t, "old"), testCA(t, "new")
	kc := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kube-ca002-kubeconfig", Namespace: kube.Namespace},
		Data: map[string][]byte{"value": capiKubeconfig(t, old)}}
	create(t, kc)
	ca := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kube-ca002-ca", Namespace: kube.Namespace}}
	create(t, ca)
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kube-ca002-ca-signer", Namespace: kube.Namespace},
		Data: map[string][]byte{corev1.TLSCertKey: next.Cert, corev1.TLSPrivateKeyKey: next.Key}})
	both := pki.KeyPair{Cert: append(append([]byte{}, old.Cert...), next.Cert...), Key: old.Key}
	for _, tc := range []struct {
		phase    string
		secret   pki.KeyPair
		signedBy []byte
		trusts   []byte
	}{
		{intent.CAPhaseTrust, both, old.Cert, old.Cert},
		{intent.CAPhaseSign, both, next.Cert, append(append([]byte{}, next.Cert...), old.Cert...)},
		{intent.CAPhaseSign, both, next.Cert, append(append([]byte{}, next.Cert...), old.Cert...)},
		{intent.CAPhaseFinish, next, next.Cert, append(append([]byte{}, next.Cert...), old.Cert...)},
	} {
		ca.Data = map[string][]byte{corev1.TLSCertKey: tc.secret.Cert, corev1.TLSPrivateKeyKey: tc.secret.Key}
		update(t, ca)
		tg := target{id: "kube-ca002", stackID: "kube-ca002", caRotation: &intent.CARotation{Generation: 1, Phase: tc.phase}}
		if why, _ := r.followCARotation(ctx, tg); why != "" {
			t.Fatalf("%s: %s", tc.phase, why)
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(kc), kc); err != nil {
			t.Fatal(err)
		}
		cfg, err := clientcmd.Load(kc.Data["value"])
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range cfg.AuthInfos {
			if !pki.SignedBy(a.ClientCertificateData, tc.signedBy) {
				t.Errorf("%s: the kubeconfig's client certificate is not signed by the expected CA", tc.phase)
			}
		}
		for _, c := range cfg.Clusters {
			if !bytes.Equal(c.CertificateAuthorityData, tc.trusts) {
				t.Errorf("%s: the kubeconfig trusts\n%s\nwant\n%s", tc.phase, c.CertificateAuthorityData, tc.trusts)
			}
		}
	}
}

func testCA(t *testing.T, name string) pki.KeyPair {
	t.Helper()
	p, err := pki.Generate(name, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p.CA
}

// capiKubeconfig is a kubeconfig as Cluster API makes it with ca.
func capiKubeconfig(t *testing.T, ca pki.KeyPair) []byte {
	t.Helper()
	cert, key, err := pki.IssueClient(ca, "kubernetes-admin", []string{"system:masters"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kube-ca002"] = &clientcmdapi.Cluster{Server: "https://192.0.2.10:6443", CertificateAuthorityData: ca.Cert}
	cfg.AuthInfos["kube-ca002-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["kube-ca002-admin@kube-ca002"] = &clientcmdapi.Context{Cluster: "kube-ca002", AuthInfo: "kube-ca002-admin"}
	cfg.CurrentContext = "kube-ca002-admin@kube-ca002"
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
