package reconciler

import (
	"context"
	"errors"
	"strings"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// A change Cluster API cannot make is not applied, not retried, and reported
// with a clear reason: a Kubernetes downgrade, and a change of an immutable
// label since the applied revision.
func TestChangesClusterAPICannotMakeAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		change       func(labels map[string]string)
	}{
		{"downgrade", ReasonDowngrade, func(l map[string]string) { l["kube_tag"] = "v1.32.9" }},
		{"immutable-label", ReasonImmutableChange, func(l map[string]string) { l["dns_cluster_domain"] = "example.internal" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			st := f.cluster("stalled-"+tc.name, 1)
			f.write(st)
			f.rec.Sync(ctx)

			labels := map[string]string{}
			for k, v := range st.Cluster.Labels {
				labels[k] = v
			}
			tc.change(labels)
			st.Cluster.Labels = labels
			f.write(st)
			f.rec.Sync(ctx)

			var stalled *status.Stalled
			if err := f.sink.errors[st.Cluster.UUID]; !errors.As(err, &stalled) || stalled.Reason != tc.reason {
				t.Fatalf("sink error = %v, want a Stalled %s", err, tc.reason)
			}
			if !strings.Contains(stalled.Message, "nothing was applied") {
				t.Errorf("message %q does not say nothing was applied", stalled.Message)
			}
			var cl clusterv1.Cluster
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}, &cl); err != nil {
				t.Fatal(err)
			}
			if cl.Spec.Topology.Version != "v1.33.4" || cl.Spec.ClusterNetwork.ServiceDomain != "cluster.local" {
				t.Errorf("the refused change was applied: version %s domain %s", cl.Spec.Topology.Version, cl.Spec.ClusterNetwork.ServiceDomain)
			}
			if _, pending := f.rec.pending[st.Dir]; pending {
				t.Error("a refused change is retried")
			}
		})
	}
}
