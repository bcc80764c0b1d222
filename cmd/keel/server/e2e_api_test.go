package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"
)

// The day-2 API end to end with Cluster API's own controllers:
// resize through actions/resize, add a nodegroup, see keel in mservices,
// then delete the cluster twice (gophercloud's helper) until it is gone.
func TestDay2ResizeNodeGroupDelete(t *testing.T) {
	in, sc := startRealKeelWith(t, "1.10", nil)
	ctx := context.Background()
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		Name: "k8s", COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33", FlavorID: "m1.medium",
		MasterFlavorID: "m1.large", ExternalNetworkID: "public", Labels: map[string]string{"kube_tag": "v1.33.4"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	masters, nodes := 1, 1
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "day2", ClusterTemplateID: tmpl.UUID, MasterCount: &masters, NodeCount: &nodes}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, sc, id, "CREATE_COMPLETE", func(c *clusters.Cluster) bool { return c.NodeCount == 1 })

	n := 2
	if _, err := clusters.Resize(ctx, sc, id, clusters.ResizeOpts{NodeCount: &n}).Extract(); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, sc, id, "UPDATE_COMPLETE", func(c *clusters.Cluster) bool { return len(c.NodeAddresses) == 2 })

	ngc := *sc
	ngc.Microversion = "1.9"
	count := 1
	if _, err := nodegroups.Create(ctx, &ngc, id, nodegroups.CreateOpts{Name: "extra", NodeCount: &count}).Extract(); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, sc, id, "UPDATE_COMPLETE", func(c *clusters.Cluster) bool { return len(c.NodeAddresses) == 3 })

	// keel reports itself in /v1/mservices (admin only).
	req, _ := http.NewRequest("GET", in.URL+"/v1/mservices", nil)
	req.Header.Set("X-Roles", "admin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var svc struct {
		MServices []struct{ Binary, State string } `json:"mservices"`
	}
	err = json.NewDecoder(resp.Body).Decode(&svc)
	resp.Body.Close()
	if err != nil || len(svc.MServices) != 1 || svc.MServices[0].Binary != ServiceBinary || svc.MServices[0].State != "up" {
		t.Fatalf("mservices: %+v %v", svc, err)
	}

	for i := 0; i < 2; i++ {
		if err := clusters.Delete(ctx, sc, id).ExtractErr(); err != nil {
			t.Fatalf("delete %d: %v", i+1, err)
		}
	}
	deadline := time.Now().Add(realWait)
	for {
		_, err := clusters.Get(ctx, sc, id).Extract()
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster still there after delete: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func waitStatus(t *testing.T, sc *gophercloud.ServiceClient, id, want string, ok func(*clusters.Cluster) bool) {
	t.Helper()
	deadline := time.Now().Add(realWait)
	for {
		c, err := clusters.Get(context.Background(), sc, id).Extract()
		if err != nil {
			t.Fatal(err)
		}
		if c.Status == want && ok(c) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %s (%s), nodes %v; want %s", c.Status, c.StatusReason, c.NodeAddresses, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
