package workload

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// rollOut plays the DaemonSet, Deployment and StatefulSet controllers of
// kube-system with their kubelets: no pod runs here, so each rollout is
// done as soon as it is observed, every pod updated and available (a
// DaemonSet's on each Node its node selector picks). What waits on a
// rollout (keel's retirement of a rotated credential) sees it finish, as
// it would on a healthy cluster. Statuses are written only when they
// change.
func rollOut(ctx context.Context, cl client.Client) error {
	var nodes corev1.NodeList
	if err := cl.List(ctx, &nodes); err != nil {
		return err
	}
	var dss appsv1.DaemonSetList
	if err := cl.List(ctx, &dss, client.InNamespace(metav1.NamespaceSystem)); err != nil {
		return err
	}
	for i := range dss.Items {
		d := &dss.Items[i]
		n := int32(scheduledOn(nodes.Items, d.Spec.Template.Spec.NodeSelector))
		st := appsv1.DaemonSetStatus{ObservedGeneration: d.Generation, DesiredNumberScheduled: n, CurrentNumberScheduled: n,
			UpdatedNumberScheduled: n, NumberReady: n, NumberAvailable: n}
		if err := writeStatus(ctx, cl, d, &d.Status, st); err != nil {
			return err
		}
	}
	var deps appsv1.DeploymentList
	if err := cl.List(ctx, &deps, client.InNamespace(metav1.NamespaceSystem)); err != nil {
		return err
	}
	for i := range deps.Items {
		d := &deps.Items[i]
		n := replicasOf(d.Spec.Replicas)
		st := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n}
		if err := writeStatus(ctx, cl, d, &d.Status, st); err != nil {
			return err
		}
	}
	var stss appsv1.StatefulSetList
	if err := cl.List(ctx, &stss, client.InNamespace(metav1.NamespaceSystem)); err != nil {
		return err
	}
	for i := range stss.Items {
		d := &stss.Items[i]
		n, rev := replicasOf(d.Spec.Replicas), d.Name+"-"+strconv.FormatInt(d.Generation, 10)
		st := appsv1.StatefulSetStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n,
			CurrentReplicas: n, AvailableReplicas: n, CurrentRevision: rev, UpdateRevision: rev}
		if err := writeStatus(ctx, cl, d, &d.Status, st); err != nil {
			return err
		}
	}
	return nil
}

// writeStatus sets *cur to want on o and writes o's status, when they
// differ.
func writeStatus[S any](ctx context.Context, cl client.Client, o client.Object, cur *S, want S) error {
	if equality.Semantic.DeepEqual(*cur, want) {
		return nil
	}
	*cur = want
	if err := cl.Status().Update(ctx, o); err != nil {
		return fmt.Errorf("rolling out %s/%s: %w", o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

// scheduledOn counts the Nodes a node selector picks.
func scheduledOn(nodes []corev1.Node, selector map[string]string) int {
	sel := labels.SelectorFromSet(selector)
	n := 0
	for _, node := range nodes {
		if sel.Matches(labels.Set(node.Labels)) {
			n++
		}
	}
	return n
}

func replicasOf(n *int32) int32 {
	if n == nil {
		return 1
	}
	return *n
}
