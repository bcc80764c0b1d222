package reconciler

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/keystonetest"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/octaviatest"
	"github.com/openkeel/keel/internal/openstack"
)

// lbFixture is a cluster (project p1) applied, whose CAPI Cluster a
// stand-in finalizer holds, a fake Octavia and Neutron published in a fake
// Keystone's catalog, and a reconciler deleting load balancers with keel's
// openstack.Client as an admin service user. The fakes are for the
// failures the real Octavia cannot be made to give on demand (500s, a
// deletion slower than the timeout); the ordinary teardown runs against
// the real one (real_openstack_teardown_deletes_load_balancers_test.go).
type lbFixture struct {
	*fixture
	st         *intent.ClusterState
	cloud      *octaviatest.Cloud
	clusterKey client.ObjectKey
	release    func()
}

func newLBFixture(t *testing.T, timeout time.Duration) *lbFixture {
	t.Helper()
	ks := keystonetest.New(t)
	ks.AddUser(keystonetest.User{ID: "keel-admin-id", Name: "keel-admin", Password: "pw", ProjectID: "service-project-id",
		ProjectName: keystonetest.ServiceProject, Roles: []string{"admin"}})
	cloud := octaviatest.New()
	srv := cloud.Server(t, func(tok string) *octaviatest.Caller {
		u := ks.TokenUser(tok)
		if u == nil {
			return nil
		}
		return &octaviatest.Caller{ProjectID: u.ProjectID, Admin: slices.Contains(u.Roles, "admin")}
	})
	ks.AddEndpoint("load-balancer", "octavia", octaviatest.OctaviaURL(srv))
	ks.AddEndpoint("network", "neutron", octaviatest.NeutronURL(srv))
	os := openstack.New(openstack.Options{Region: keystonetest.Region, Auth: gophercloud.AuthOptions{IdentityEndpoint: ks.AuthURL,
		Username: "keel-admin", Password: "pw", DomainName: keystonetest.DomainName,
		Scope: &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName}}})

	f := newFixture(t)
	r, err := New(f.store, env.Client, f.sink, Options{RetryMin: 20 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		LoadBalancers: os, LoadBalancerTimeout: timeout, CredentialAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.rec = r
	st := f.cluster("lb", 1)
	f.write(st)
	f.rec.Sync(context.Background())
	key := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}
	return &lbFixture{fixture: f, st: st, cloud: cloud, clusterKey: key, release: holdCluster(t, key)}
}

// addLB stores an ACTIVE load balancer of project p1 (with a floating IP
// on its VIP port when fip).
func (f *lbFixture) addLB(description string, fip bool) octaviatest.LoadBalancer {
	return f.cloud.AddLoadBalancer(octaviatest.LoadBalancer{Name: fmt.Sprintf("kube_service_%d", len(f.cloud.LoadBalancers())),
		Description: description, ProjectID: "p1"}, fip)
}

// occm is the description OCCM gives the load balancer of a Service.
func occm(svc, clusterUUID string) string {
	return fmt.Sprintf("Kubernetes external service %s from cluster %s", svc, clusterUUID)
}

// clusterDeleting reports whether the CAPI Cluster's delete was asked.
func (f *lbFixture) clusterDeleting() bool {
	f.t.Helper()
	var c clusterv1.Cluster
	if err := env.Client.Get(context.Background(), f.clusterKey, &c); err != nil {
		f.t.Fatal(err)
	}
	return c.DeletionTimestamp != nil
}

// left reports which of lbs Octavia still holds.
func (f *lbFixture) left(lbs ...octaviatest.LoadBalancer) []string {
	var out []string
	for _, lb := range f.cloud.LoadBalancers() {
		if slices.ContainsFunc(lbs, func(x octaviatest.LoadBalancer) bool { return x.ID == lb.ID }) {
			out = append(out, lb.ID)
		}
	}
	return out
}

func (s *recordingSink) reasons(uuid string) (deleting, failed string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deleting[uuid], s.failed[uuid]
}
