package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// The CA bundle of a rotation's phase reaches the workload cluster's
// kube-public/cluster-info, where kubeadm's token discovery checks the CA
// hashes Cluster API pins (here the test's API server plays the workload
// cluster too); a workload cluster without it is left alone.
func TestCARotationPublishesClusterInfo(t *testing.T) {
	ctx := context.Background()
	w := WorkloadConsumers{Management: env.Client}
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kube-ci001-kubeconfig", Namespace: kube.Namespace},
		Data: map[string][]byte{"value": env.KubeConfig}})
	if err := w.Publish(ctx, "kube-ci001", []byte("bundle-1")); err != nil {
		t.Fatalf("no cluster-info: %v", err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[""] = &clientcmdapi.Cluster{Server: "https://192.0.2.10:6443", CertificateAuthorityData: []byte("old")}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cluster-info", Namespace: "kube-public"}, Data: map[string]string{"kubeconfig": string(data)}})
	for _, bundle := range []string{"bundle-2", "bundle-2", "bundle-3"} {
		if err := w.Publish(ctx, "kube-ci001", []byte(bundle)); err != nil {
			t.Fatal(err)
		}
		var cm corev1.ConfigMap
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "kube-public", Name: "cluster-info"}, &cm); err != nil {
			t.Fatal(err)
		}
		got, err := clientcmd.Load([]byte(cm.Data["kubeconfig"]))
		if err != nil {
			t.Fatal(err)
		}
		if ca := string(got.Clusters[""].CertificateAuthorityData); ca != bundle {
			t.Fatalf("cluster-info CA %q, want %q", ca, bundle)
		}
		if got.Clusters[""].Server != "https://192.0.2.10:6443" {
			t.Fatalf("cluster-info server changed: %s", got.Clusters[""].Server)
		}
	}
}
