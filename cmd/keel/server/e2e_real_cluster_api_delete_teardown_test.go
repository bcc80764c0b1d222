package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// With Cluster API's own controllers, a deleted cluster is
// DELETE_IN_PROGRESS while Cluster API and (simulated) CAPO work through
// their finalizers; its cloud credentials (<stack_id>-cloud-config) exist
// as long as its CAPI Cluster does (CAPO's finalizers need them); once the
// API answers 404 nothing of it is left in the management cluster that a
// controller or keel deletes: no Cluster API or CAPO object, no Secret, no
// ClusterResourceSet. What Cluster API leaves to Kubernetes' garbage
// collector (the templates the topology made, the kubeconfig and bootstrap
// Secrets, owned by objects now gone) may remain only as garbage: every
// such leftover must name an owner that no longer exists, and the embedded
// management cluster's garbage collector (kube-controller-manager, as on a
// real management cluster) must remove them all within two minutes.
func TestRealClusterAPIDeleteTearsDownInOrder(t *testing.T) {
	ctx := context.Background()
	in, sc := startRealKeel(t)
	tmpl := realTemplate(t, sc, "", "calico", nil)
	c := createRealCluster(t, sc, "doomed", tmpl.UUID, 1, 1)
	if left := leftovers(t, in, c.StackID); len(left) == 0 {
		t.Fatal("no object of a CREATE_COMPLETE cluster found: the leftovers check would prove nothing")
	}

	if err := clusters.Delete(ctx, sc, c.UUID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	got, err := clusters.Get(ctx, sc, c.UUID).Extract()
	if err != nil || got.Status != "DELETE_IN_PROGRESS" {
		t.Fatalf("right after the delete: %+v (%v), want DELETE_IN_PROGRESS", got, err)
	}

	key := client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID}
	credentials := client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID + "-cloud-config"}
	sawDeleting := false
	waitFor(t, 5*time.Minute, "the cluster to be gone (404)", func() bool {
		// Read the Secret after the Cluster: a Secret gone while the
		// Cluster still exists is a teardown out of order.
		var cl clusterv1.Cluster
		clErr := in.Client.Get(ctx, key, &cl)
		secErr := in.Client.Get(ctx, credentials, &corev1.Secret{})
		if clErr == nil {
			sawDeleting = sawDeleting || !cl.DeletionTimestamp.IsZero()
			if secErr != nil {
				t.Fatalf("the Cluster exists (finalizers %v) but its credentials do not: %v", cl.Finalizers, secErr)
			}
		}
		got, err := clusters.Get(ctx, sc, c.UUID).Extract()
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return true
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != "DELETE_IN_PROGRESS" {
			t.Fatalf("while deleting: status %s (%s), want DELETE_IN_PROGRESS", got.Status, got.StatusReason)
		}
		return false
	})
	if !sawDeleting {
		t.Error("the CAPI Cluster was never seen deleting (with its finalizers) before the 404")
	}
	var garbage []string
	for _, o := range leftovers(t, in, c.StackID) {
		name := o.GetKind() + "/" + o.GetName()
		if !ownerGone(t, in, o) {
			t.Errorf("%s is left in the management cluster after the 404", name)
			continue
		}
		garbage = append(garbage, name)
	}
	t.Logf("left to the garbage collector (owners gone): %v", garbage)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		var left []string
		for _, o := range leftovers(t, in, c.StackID) {
			left = append(left, o.GetKind()+"/"+o.GetName())
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 minutes after the 404 the garbage collector has not deleted %v", left)
		}
	}
}

// ownerGone reports whether o has an owner reference and every owner it
// names is gone (deleted, or replaced by another object of its name).
func ownerGone(t *testing.T, in *Instance, o unstructured.Unstructured) bool {
	t.Helper()
	refs := o.GetOwnerReferences()
	if len(refs) == 0 {
		return false
	}
	for _, ref := range refs {
		owner := &unstructured.Unstructured{}
		owner.SetAPIVersion(ref.APIVersion)
		owner.SetKind(ref.Kind)
		err := in.Client.Get(context.Background(), client.ObjectKey{Namespace: o.GetNamespace(), Name: ref.Name}, owner)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			t.Fatalf("owner %s %s of %s/%s: %v", ref.Kind, ref.Name, o.GetKind(), o.GetName(), err)
		case owner.GetUID() == ref.UID:
			return false
		}
	}
	return true
}

// leftovers lists what of the cluster stack exists in the management
// cluster: Cluster API, kubeadm and CAPO objects (by the cluster-name
// label), Secrets and ClusterResourceSets (by name: <stack_id>-...).
func leftovers(t *testing.T, in *Instance, stack string) []unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	var out []unstructured.Unstructured
	labelled := []schema.GroupVersionKind{
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineDeployment"},
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineSet"},
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Machine"},
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineHealthCheck"},
		{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"},
		{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmConfig"},
		{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmConfigTemplate"},
		{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackMachineTemplate"},
		{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackCluster"},
		{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackMachine"},
	}
	for _, gvk := range labelled {
		var l unstructured.UnstructuredList
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := in.Client.List(ctx, &l, client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: stack}); err != nil {
			t.Fatalf("listing %s: %v", gvk.Kind, err)
		}
		out = append(out, l.Items...)
	}
	named := []schema.GroupVersionKind{
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Cluster"},
		{Group: "addons.cluster.x-k8s.io", Version: "v1beta2", Kind: "ClusterResourceSet"},
		{Group: "addons.cluster.x-k8s.io", Version: "v1beta2", Kind: "ClusterResourceSetBinding"},
		{Version: "v1", Kind: "Secret"},
		{Version: "v1", Kind: "ConfigMap"},
	}
	for _, gvk := range named {
		var l unstructured.UnstructuredList
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := in.Client.List(ctx, &l, client.InNamespace(kube.Namespace)); err != nil {
			t.Fatalf("listing %s: %v", gvk.Kind, err)
		}
		for _, o := range l.Items {
			if o.GetName() == stack || strings.HasPrefix(o.GetName(), stack+"-") {
				out = append(out, o)
			}
		}
	}
	return out
}
