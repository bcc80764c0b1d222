package reconciler

import (
	"context"
	"errors"
	"strings"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// The guard judges immutable labels with the repository's site.cue, as the
// API does: with a site default for dns_cluster_domain, dropping the label
// a cluster was created with changes its effective value (the embedded
// schema's default would equal the old value and let it through), so the
// change is refused and nothing is applied.
func TestGuardJudgesImmutablesWithTheSiteFile(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.commit("site", gitstore.Change{Path: schemas.SiteFile, Data: []byte(`site: defaults: dns_cluster_domain: "site.internal"` + "\n")})

	st := f.cluster("site-immutables", 1)
	labels := map[string]string{"dns_cluster_domain": "cluster.local"}
	for k, v := range st.Cluster.Labels {
		labels[k] = v
	}
	st.Cluster.Labels = labels
	f.write(st)
	f.rec.Sync(ctx)
	if err := f.sink.errors[st.Cluster.UUID]; err != nil {
		t.Fatalf("create: %v", err)
	}

	without := map[string]string{}
	for k, v := range labels {
		if k != "dns_cluster_domain" {
			without[k] = v
		}
	}
	st.Cluster.Labels = without
	f.write(st)
	f.rec.Sync(ctx)

	var stalled *status.Stalled
	if err := f.sink.errors[st.Cluster.UUID]; !errors.As(err, &stalled) || stalled.Reason != ReasonImmutableChange {
		t.Fatalf("sink error = %v, want a Stalled %s", err, ReasonImmutableChange)
	}
	if !strings.Contains(stalled.Message, "dns_cluster_domain") {
		t.Errorf("message %q does not name dns_cluster_domain", stalled.Message)
	}
	var cl clusterv1.Cluster
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}, &cl); err != nil {
		t.Fatal(err)
	}
	if cl.Spec.ClusterNetwork.ServiceDomain != "cluster.local" {
		t.Errorf("the refused change was applied: service domain %s", cl.Spec.ClusterNetwork.ServiceDomain)
	}
}
