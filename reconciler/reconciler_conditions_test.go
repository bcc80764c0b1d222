package reconciler

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// Each folder's inventory records the attempted revision and Flux-style
// conditions: Ready after a successful apply; Stalled (and not Ready) after
// a change Cluster API cannot make.
func TestConditionsAreRecordedOnTheInventory(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("conditions", 1)
	f.write(st)
	f.rec.Sync(ctx)

	get := func() *corev1.ConfigMap {
		var cm corev1.ConfigMap
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: inventoryName(st.Cluster.StackID)}, &cm); err != nil {
			t.Fatal(err)
		}
		return &cm
	}
	cm := get()
	if c := apimeta.FindStatusCondition(Conditions(cm), meta.ReadyCondition); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready after a successful apply: %+v", Conditions(cm))
	}
	sn, _ := f.store.SnapshotHead()
	tree, _ := sn.Hash(st.Dir)
	if cm.Annotations[attemptedAnnotation] != tree.String() || cm.Annotations[inventoryRevAnnotation] != tree.String() {
		t.Errorf("revisions: attempted %s applied %s, want %s", cm.Annotations[attemptedAnnotation], cm.Annotations[inventoryRevAnnotation], tree)
	}

	labels := map[string]string{}
	for k, v := range st.Cluster.Labels {
		labels[k] = v
	}
	labels["kube_tag"] = "v1.30.0"
	st.Cluster.Labels = labels
	f.write(st)
	f.rec.Sync(ctx)
	cm = get()
	conds := Conditions(cm)
	if c := apimeta.FindStatusCondition(conds, meta.StalledCondition); c == nil || c.Status != metav1.ConditionTrue || c.Reason != ReasonDowngrade {
		t.Errorf("Stalled after a downgrade: %+v", conds)
	}
	if c := apimeta.FindStatusCondition(conds, meta.ReadyCondition); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Ready after a downgrade: %+v", conds)
	}
	if cm.Annotations[inventoryRevAnnotation] != tree.String() {
		t.Errorf("the applied revision moved to a refused change: %s", cm.Annotations[inventoryRevAnnotation])
	}
}
