package reconciler

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// CredentialConsumers tells whether the consumers of a cluster's cloud
// credential inside its workload cluster use the current one.
type CredentialConsumers interface {
	// Pending is "" when the workload cluster of the CAPI Cluster stackID
	// holds credential id in its cloud.conf and every workload that reads
	// it runs credential generation gen; otherwise what is waited for.
	Pending(ctx context.Context, stackID, id string, gen int64) (string, error)
}

// WorkloadConsumers is CredentialConsumers asking the workload cluster
// itself, with the admin kubeconfig Cluster API keeps in the management
// cluster (Secret <cluster>-kubeconfig).
type WorkloadConsumers struct {
	// Management reads the kubeconfig Secrets.
	Management client.Reader
}

// Pending implements CredentialConsumers.
func (w WorkloadConsumers) Pending(ctx context.Context, stackID, id string, gen int64) (string, error) {
	wc, err := w.workloadClient(ctx, stackID)
	if err != nil {
		return "", err
	}
	var s corev1.Secret
	key := client.ObjectKey{Namespace: intent.WorkloadCloudConfigNamespace, Name: intent.WorkloadCloudConfigSecret}
	if err := wc.Get(ctx, key, &s); err != nil {
		return "", fmt.Errorf("reading %s: %w", key, err)
	}
	if !strings.Contains(string(s.Data["cloud.conf"]), strconv.Quote(id)) {
		return fmt.Sprintf("waiting for the ClusterResourceSet to deliver the new credential to %s in the workload cluster", key), nil
	}
	return rollouts(ctx, wc, gen)
}

// workloadClient is a client of the workload cluster of stackID.
func (w WorkloadConsumers) workloadClient(ctx context.Context, stackID string) (client.Client, error) {
	var s corev1.Secret
	key := client.ObjectKey{Namespace: kube.Namespace, Name: stackID + "-kubeconfig"}
	if err := w.Management.Get(ctx, key, &s); err != nil {
		return nil, fmt.Errorf("reading the workload cluster's kubeconfig %s: %w", key, err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data["value"])
	if err != nil {
		return nil, fmt.Errorf("the workload cluster's kubeconfig %s: %w", key, err)
	}
	return client.New(cfg, client.Options{Scheme: workloadScheme})
}

// workloadScheme has the kinds WorkloadConsumers reads, built once.
var workloadScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = corev1.AddToScheme(s)
	_ = appsv1.AddToScheme(s)
	return s
}()

// rollouts is "" when every workload of kube-system carrying a credential
// generation carries gen and finished rolling out (as `kubectl rollout
// status` judges it), and at least one does; else the first that did not.
func rollouts(ctx context.Context, wc client.Client, gen int64) (string, error) {
	want := strconv.FormatInt(gen, 10)
	var dss appsv1.DaemonSetList
	var deps appsv1.DeploymentList
	var stss appsv1.StatefulSetList
	for _, l := range []client.ObjectList{&dss, &deps, &stss} {
		if err := wc.List(ctx, l, client.InNamespace(intent.WorkloadCloudConfigNamespace)); err != nil {
			return "", err
		}
	}
	var pending []string // per workload carrying a generation: "" when rolled out
	for i := range dss.Items {
		pending = appendCarrying(pending, dss.Items[i].Spec.Template, want, daemonSetPending(&dss.Items[i]))
	}
	for i := range deps.Items {
		pending = appendCarrying(pending, deps.Items[i].Spec.Template, want, deploymentPending(&deps.Items[i]))
	}
	for i := range stss.Items {
		pending = appendCarrying(pending, stss.Items[i].Spec.Template, want, statefulSetPending(&stss.Items[i]))
	}
	if len(pending) == 0 {
		return "waiting for the cloud controller manager and CSI drivers of the new credential generation to reach the workload cluster", nil
	}
	for _, why := range pending {
		if why != "" {
			return why, nil
		}
	}
	return "", nil
}

// appendCarrying adds a workload's pending reason to pending when its pod
// template carries a credential generation: why when it runs gen, or
// that it does not run gen yet.
func appendCarrying(pending []string, tmpl corev1.PodTemplateSpec, gen, why string) []string {
	got, ok := tmpl.Annotations[intent.AnnotationCredentialGeneration]
	switch {
	case !ok:
		return pending
	case got != gen:
		why = "waiting for the workload cluster's cloud controller manager and CSI drivers to be updated to credential generation " + gen
	}
	return append(pending, why)
}

func daemonSetPending(d *appsv1.DaemonSet) string {
	st := d.Status
	if st.ObservedGeneration < d.Generation ||
		st.UpdatedNumberScheduled < st.DesiredNumberScheduled || st.NumberAvailable < st.DesiredNumberScheduled {
		return fmt.Sprintf("waiting for DaemonSet %s/%s of the workload cluster to restart onto the new credential (%d of %d pods updated, %d available)",
			d.Namespace, d.Name, st.UpdatedNumberScheduled, st.DesiredNumberScheduled, st.NumberAvailable)
	}
	return ""
}

func deploymentPending(d *appsv1.Deployment) string {
	st := d.Status
	want := replicas(d.Spec.Replicas)
	if st.ObservedGeneration < d.Generation ||
		st.UpdatedReplicas < want || st.Replicas > st.UpdatedReplicas || st.AvailableReplicas < st.UpdatedReplicas {
		return fmt.Sprintf("waiting for Deployment %s/%s of the workload cluster to restart onto the new credential (%d of %d pods updated, %d available)",
			d.Namespace, d.Name, st.UpdatedReplicas, want, st.AvailableReplicas)
	}
	return ""
}

func statefulSetPending(d *appsv1.StatefulSet) string {
	st := d.Status
	want := replicas(d.Spec.Replicas)
	if st.ObservedGeneration < d.Generation || st.UpdatedReplicas < want || st.CurrentRevision != st.UpdateRevision || st.ReadyReplicas < want {
		return fmt.Sprintf("waiting for StatefulSet %s/%s of the workload cluster to restart onto the new credential (%d of %d pods updated, %d ready)",
			d.Namespace, d.Name, st.UpdatedReplicas, want, st.ReadyReplicas)
	}
	return ""
}

// replicas is a spec's replica count (1 when unset, as the API defaults it).
func replicas(n *int32) int32 {
	if n == nil {
		return 1
	}
	return *n
}
