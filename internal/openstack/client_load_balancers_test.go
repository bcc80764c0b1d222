package openstack

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/openkeel/keel/internal/testing/keystonetest"
	"github.com/openkeel/keel/internal/testing/octaviatest"
)

const lbCluster = "0d5bd0aa-5f0e-4c4c-9a55-000000000001"

// lbCloud is a Keystone whose catalog has the fake Octavia and Neutron
// (when octavia), and a client per user name.
func lbCloud(t *testing.T, octavia bool) (*octaviatest.Cloud, func(user string) *Client) {
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
	if octavia {
		ks.AddEndpoint("load-balancer", "octavia", octaviatest.OctaviaURL(srv))
	}
	ks.AddEndpoint("network", "neutron", octaviatest.NeutronURL(srv))
	return cloud, func(user string) *Client {
		pass := "pw"
		if user == keystonetest.ServiceUser {
			pass = keystonetest.ServicePass
		}
		return New(Options{Region: keystonetest.Region, Auth: gophercloud.AuthOptions{IdentityEndpoint: ks.AuthURL,
			Username: user, Password: pass, DomainName: keystonetest.DomainName,
			Scope: &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName}}})
	}
}

func occmDescription(svc, cluster string) string {
	return fmt.Sprintf("Kubernetes external service %s from cluster %s", svc, cluster)
}

// The load balancers OCCM made for the cluster in its project (found on
// any page of the list) are deleted with cascade, the floating IPs on
// their VIP ports first, and reported until Octavia has removed them; one
// being updated (409) is asked again. Other clusters' load balancers, one
// whose cluster name only starts with the UUID, one not OCCM's and one of
// another project are untouched.
func TestClientDeletesClusterLoadBalancers(t *testing.T) {
	cloud, client := lbCloud(t, true)
	lb := func(desc, project string, fip bool) octaviatest.LoadBalancer {
		return cloud.AddLoadBalancer(octaviatest.LoadBalancer{Name: "kube_service_x", Description: desc, ProjectID: project}, fip)
	}
	web := lb(occmDescription("default/web", lbCluster), "p1", true)
	ingress := lb(occmDescription("kube-system/ingress", lbCluster), "p1", false)
	updating := lb(occmDescription("default/api", lbCluster), "p1", false)
	cloud.SetStatus(updating.ID, "PENDING_UPDATE")
	keep := []octaviatest.LoadBalancer{
		lb(occmDescription("default/web", "0d5bd0aa-5f0e-4c4c-9a55-000000000002"), "p1", true),
		lb(occmDescription("default/web", lbCluster+"-old"), "p1", true),
		lb("a load balancer from cluster "+lbCluster, "p1", false),
		lb(occmDescription("default/web", lbCluster), "p2", true),
	}
	for i := 0; i < lbPageLimit; i++ {
		keep = append(keep, lb(fmt.Sprintf("other %d", i), "p1", false))
	}
	late := lb(occmDescription("default/late", lbCluster), "p1", true) // on the second page
	ctx := context.Background()
	admin := client("keel-admin")

	left, err := admin.DeleteClusterLoadBalancers(ctx, "p1", lbCluster)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(left); !slices.Equal(got, []string{web.ID, ingress.ID, updating.ID, late.ID}) {
		t.Fatalf("left %v, want web, ingress, the updating one and late (being deleted)", got)
	}
	want := []string{web.ID + " cascade=true", ingress.ID + " cascade=true", late.ID + " cascade=true"}
	if got := cloud.LoadBalancerDeletes(); !slices.Equal(got, want) {
		t.Fatalf("deleted %v, want %v", got, want)
	}
	if got := len(cloud.FloatingIPDeletes()); got != 2 {
		t.Fatalf("%d floating IPs deleted, want web's and late's", got)
	}
	for _, f := range cloud.FloatingIPs() {
		if f.PortID == web.VipPortID || f.PortID == late.VipPortID {
			t.Errorf("floating IP %s of a deleted load balancer is left", f.ID)
		}
	}

	left, err = admin.DeleteClusterLoadBalancers(ctx, "p1", lbCluster)
	if err != nil || !slices.Equal(ids(left), []string{updating.ID}) {
		t.Fatalf("second pass: left %v, %v; want the updating one", ids(left), err)
	}
	cloud.SetStatus(updating.ID, "ACTIVE")
	if _, err := admin.DeleteClusterLoadBalancers(ctx, "p1", lbCluster); err != nil {
		t.Fatal(err)
	}
	if left, err = admin.DeleteClusterLoadBalancers(ctx, "p1", lbCluster); err != nil || len(left) != 0 {
		t.Fatalf("last pass: left %v, %v; want none", ids(left), err)
	}
	remaining := cloud.LoadBalancers()
	if len(remaining) != len(keep) {
		t.Fatalf("%d load balancers left, want the %d of others", len(remaining), len(keep))
	}
	for i, lb := range remaining {
		if lb.ID != keep[i].ID || lb.ProvisioningStatus != "ACTIVE" {
			t.Fatalf("left %+v, want %+v untouched", lb, keep[i])
		}
	}
	if got := len(cloud.FloatingIPs()); got != 3 {
		t.Errorf("%d floating IPs left, want the other clusters' 3", got)
	}
}

func ids(lbs []LoadBalancer) []string {
	out := []string{}
	for _, lb := range lbs {
		out = append(out, lb.ID)
	}
	return out
}
