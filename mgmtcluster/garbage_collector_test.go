package mgmtcluster

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// With Options.GarbageCollector, an object whose owner is deleted (background
// propagation: the apiserver deletes the owner alone) is deleted by
// kube-controller-manager's garbage collector, as on a real cluster; the
// apiserver alone never would.
func TestGarbageCollectorDeletesDependentsOfDeletedOwner(t *testing.T) {
	ctx := context.Background()
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: "gc-owner"}}
	if err := env.Client.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: kube.Namespace, Name: "gc-dependent",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}},
	}}
	if err := env.Client.Create(ctx, dependent); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	// The collector's first discovery and informer sync take seconds on a
	// loaded machine; a minute is ample.
	deadline := time.Now().Add(time.Minute)
	for {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(dependent), &corev1.ConfigMap{})
		if apierrors.IsNotFound(err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("a minute after its owner was deleted, the dependent ConfigMap still exists")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
