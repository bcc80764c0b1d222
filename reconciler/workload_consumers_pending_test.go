package reconciler

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// WorkloadConsumers reads the workload cluster through the kubeconfig
// Secret Cluster API keeps (here the test's API server plays the workload
// cluster too): a rotation waits until kube-system/cloud-config carries the
// new credential and every workload carrying a credential generation runs
// the new one and finished rolling out.
func TestWorkloadConsumersPendingUntilRolledOut(t *testing.T) {
	ctx := context.Background()
	w := WorkloadConsumers{Management: env.Client}
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kube-wc001-kubeconfig", Namespace: kube.Namespace},
		Data: map[string][]byte{"value": env.KubeConfig}})
	conf := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: intent.WorkloadCloudConfigSecret, Namespace: intent.WorkloadCloudConfigNamespace},
		Data: map[string][]byte{"cloud.conf": []byte(`application-credential-id = "ac-old"`)}}
	create(t, conf)
	ds := consumerDaemonSet("1")
	create(t, ds)
	pending := func(want string) {
		t.Helper()
		why, err := w.Pending(ctx, "kube-wc001", "ac-new", 2)
		if err != nil || !strings.Contains(why, want) || (want == "") != (why == "") {
			t.Fatalf("pending %q (%v), want %q", why, err, want)
		}
	}

	pending("deliver the new credential")
	conf.Data["cloud.conf"] = []byte(`application-credential-id = "ac-new"`)
	update(t, conf)
	pending("updated to credential generation 2")
	ds.Spec.Template.Annotations[intent.AnnotationCredentialGeneration] = "2"
	update(t, ds)
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 1, NumberAvailable: 2}
	if err := env.Client.Status().Update(ctx, ds); err != nil {
		t.Fatal(err)
	}
	pending("(1 of 3 pods updated, 2 available)")
	ds.Status.UpdatedNumberScheduled, ds.Status.NumberAvailable = 3, 3
	if err := env.Client.Status().Update(ctx, ds); err != nil {
		t.Fatal(err)
	}
	pending("")
}

// consumerDaemonSet is the cloud controller manager's DaemonSet at
// credential generation gen.
func consumerDaemonSet(gen string) *appsv1.DaemonSet {
	labels := map[string]string{"app": "occm-test"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "occm-test", Namespace: intent.WorkloadCloudConfigNamespace},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{intent.AnnotationCredentialGeneration: gen}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "occm", Image: "occm:test"}}},
			},
		},
	}
}

func create(t *testing.T, o client.Object) {
	t.Helper()
	if err := env.Client.Create(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o) })
}

func update(t *testing.T, o client.Object) {
	t.Helper()
	if err := env.Client.Update(context.Background(), o); err != nil {
		t.Fatal(err)
	}
}
