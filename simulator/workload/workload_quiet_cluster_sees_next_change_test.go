package workload

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A light cluster where nothing changed is not synced again (its Syncs
// write nothing and are skipped), yet the first change after that, here a
// Node annotated kubelet-stopped, is played by the next Sync.
func TestQuietClusterSeesNextChange(t *testing.T) {
	ctx := testContext(t)
	c, _ := newCluster(t, "quiet")
	m := Machine{Name: "quiet-control-plane-abcde", ControlPlane: true, IP: "10.0.0.41", KubeletVersion: "v1.33.4"}
	if err := c.Boot(ctx, m); err != nil {
		t.Fatal(err)
	}
	// Settle: Syncs until one finds the store as it left it.
	var rev uint64
	for i := 0; ; i++ {
		if i == 10 {
			t.Fatalf("the cluster never became quiet: revision %d, marked %d", c.store.Revision(), c.synced.rev)
		}
		c.rolledOut = time.Time{} // the rollouts due at each Sync
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if _, quiet := c.quiet(time.Now()); quiet {
			rev = c.store.Revision()
			break
		}
	}
	if err := c.Sync(ctx); err != nil || c.store.Revision() != rev {
		t.Fatalf("a quiet cluster's Sync wrote: revision %d → %d (%v)", rev, c.store.Revision(), err)
	}

	n, err := c.nodeObject(ctx, m.Name)
	if err != nil {
		t.Fatal(err)
	}
	before := n.DeepCopy()
	n.Annotations = map[string]string{AnnotationKubeletStopped: ""}
	if err := c.Client().Patch(ctx, n, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err = c.nodeObject(ctx, m.Name); err != nil {
		t.Fatal(err)
	}
	if cond := nodeCondition(n, corev1.NodeReady); cond == nil || cond.Status != corev1.ConditionUnknown {
		t.Fatalf("after kubelet-stopped on a quiet cluster, Ready = %+v, want Unknown", cond)
	}
}
