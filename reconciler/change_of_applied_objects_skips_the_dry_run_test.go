package reconciler

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// dryRunCounter counts the server-side dry runs made through it.
type dryRunCounter struct {
	client.Client
	n atomic.Int32
}

func (c *dryRunCounter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if po := (&client.PatchOptions{}).ApplyOptions(opts); len(po.DryRun) > 0 {
		c.n.Add(1)
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

// A change that only updates objects this process applied applies them
// without a dry run (apply_updates.go); a change that adds an object, and
// a resync, still dry-run through fluxcd/pkg/ssa. Each case checks the
// apply took effect.
func TestChangeOfAppliedObjectsSkipsTheDryRun(t *testing.T) {
	cases := []struct {
		name     string
		withNew  bool // the change adds a Secret
		resync   bool // then a resync instead of a change
		dryRuns  bool
		replicas int32
	}{
		{name: "resize", replicas: 3},
		{name: "resize and a new object", withNew: true, dryRuns: true, replicas: 3},
		{name: "resync", resync: true, dryRuns: true, replicas: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			counter := &dryRunCounter{Client: env.Client}
			rec, err := New(f.store, counter, f.sink, Options{RetryMin: 50 * time.Millisecond, RetryMax: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			f.rec = rec
			ctx := context.Background()
			st := f.cluster("dry-run", 1)
			f.write(st)
			f.rec.SyncAll(ctx)
			counter.n.Store(0)

			secret := st.Cluster.StackID + "-new"
			switch {
			case tc.resync:
				f.rec.SyncAll(ctx)
			case tc.withNew:
				st.NodeGroups[1].NodeCount = 3
				f.write(st, renderedSecret(st, secret)...)
				f.rec.Sync(ctx)
			default:
				st.NodeGroups[1].NodeCount = 3
				f.write(st)
				f.rec.Sync(ctx)
			}
			if len(f.rec.pending) != 0 {
				t.Fatalf("pending after the pass: %v", f.rec.pending)
			}
			if got := workerReplicas(t, st.Cluster.StackID); got != tc.replicas {
				t.Fatalf("worker replicas: %d, want %d", got, tc.replicas)
			}
			if tc.withNew {
				if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: secret}, &corev1.Secret{}); err != nil {
					t.Fatalf("the new Secret was not applied: %v", err)
				}
			}
			if got := counter.n.Load() > 0; got != tc.dryRuns {
				t.Fatalf("dry runs made: %d, want any: %v", counter.n.Load(), tc.dryRuns)
			}
		})
	}
}
