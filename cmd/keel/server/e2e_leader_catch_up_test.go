package server

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	coordinationv1 "k8s.io/api/coordination/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/restapi/auth"
)

// A replica that takes the Lease over fetches the Git server before it
// reconciles: its mirror may lack the clusters the previous leader created
// and applied (here the follower's fetch interval is an hour and it has
// its own read model, so nothing else brings them), and reconciling that
// older HEAD would tear those clusters down as orphans.
func TestNewLeaderFetchesBeforeReconciling(t *testing.T) {
	ctx := context.Background()
	remote := newGitServer(t)
	start := func() (*Instance, *gophercloud.ServiceClient) {
		return startKeelWith(t, "1.10", func(o *Options) {
			o.Auth = auth.NoAuth{DefaultProject: "p-" + t.Name(), Admin: true}
			o.GitRemote, o.GitRemoteInterval = remote, time.Hour
			o.LeaderElection = true
		})
	}
	holder := func() string {
		var l coordinationv1.Lease
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: LeaseName}, &l); err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	capiCluster := func(stack string) *clusterv1.Cluster {
		var c clusterv1.Cluster
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: stack}, &c); err != nil {
			return nil
		}
		return &c
	}
	create := func(sc *gophercloud.ServiceClient, name string) string {
		tmpl := createTemplate(t, sc, name+"-t")
		uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: name, ClusterTemplateID: tmpl.UUID}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		c, err := clusters.Get(ctx, sc, uuid).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return c.StackID
	}

	leader, scA := start()
	waitFor(t, 30*time.Second, "the first replica to lead", func() bool { return holder() != "" })
	first := holder()
	// Started before the cluster exists: its start-up fetch misses it.
	_, scB := start()
	stackA := create(scA, "from-first")
	waitFor(t, 60*time.Second, "the first leader to apply its cluster", func() bool { return capiCluster(stackA) != nil })

	if err := leader.Stop(); err != nil { // releases the Lease
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the second replica to take the Lease", func() bool { h := holder(); return h != "" && h != first })
	// Once the new leader applied a cluster of its own, its start-up pass
	// over the whole repository is behind it.
	stackB := create(scB, "from-second")
	waitFor(t, 60*time.Second, "the new leader to apply its cluster", func() bool { return capiCluster(stackB) != nil })
	c := capiCluster(stackA)
	if c == nil || c.DeletionTimestamp != nil {
		t.Fatalf("the new leader tore down the previous leader's cluster %s (%v)", stackA, c)
	}
}
