package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/testenv/realopenstack"
	"github.com/openkeel/keel/mgmtcluster/capo"
	"github.com/openkeel/keel/restapi/auth"
)

// realOpenStack is keel in the real-OpenStack world (docs/simulator.md):
// the embedded management cluster with Cluster API's controllers, the
// real CAPO and ORC beside it, the test cloud's Keystone authenticating the
// API and its services answering the lookups as the caller, a project of
// the test's own, and a simulator that plays only the hypervisor.
type realOpenStack struct {
	in        *Instance
	sc        *gophercloud.ServiceClient
	cloud     *realopenstack.Cloud
	project   *realopenstack.Project
	providers *capo.Providers
}

// startRealOpenStackKeel starts that world; the Magnum client carries a
// token of the project's user.
func startRealOpenStackKeel(t *testing.T) *realOpenStack {
	t.Helper()
	cloud := realopenstack.Attach(t)
	project := cloud.NewProject(t)
	svc := cloud.ServiceAuth()
	in, sc := startKeelWith(t, "1.10", func(o *Options) {
		o.Config, o.RealClusterAPI, o.Hypervisor = nil, true, true
		o.SimulateStep = time.Second
		o.Auth = &auth.Keystone{AuthURL: cloud.AuthURL, Service: svc}
		o.AuthURL = cloud.AuthURL
		o.OpenStack = openstack.New(openstack.Options{Auth: svc, Region: cloud.Region})
		o.Cloud = intent.CloudConfig{RegionName: cloud.Region}
	})
	dir := t.TempDir()
	providers, err := capo.Start(context.Background(), capo.Options{Config: in.Config, KubeConfig: in.KubeConfig(), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Before keel stops (cleanups run last first): CAPO's webhooks
		// go with it.
		if err := providers.Stop(); err != nil {
			t.Log(err)
		}
		if t.Failed() {
			capoLog, orcLog := providers.Logs()
			t.Logf("CAPO's log, last lines:\n%s", tail(capoLog, 60))
			t.Logf("ORC's log, last lines:\n%s", tail(orcLog, 20))
		}
	})
	sc.MoreHeaders = map[string]string{"X-Auth-Token": project.Token(t)}
	return &realOpenStack{in: in, sc: sc, cloud: cloud, project: project, providers: providers}
}

// template creates a cluster template on the test cloud's image, flavors
// and external network, with an API load balancer and floating IPs.
func (r *realOpenStack) template(t *testing.T, labels map[string]string) *clustertemplates.ClusterTemplate {
	t.Helper()
	l := map[string]string{"kube_tag": "v1.33.1"}
	for k, v := range labels {
		l[k] = v
	}
	yes := true
	flavor := r.cloud.Flavors[0]
	tmpl, err := clustertemplates.Create(context.Background(), r.sc, clustertemplates.CreateOpts{
		Name: "real-" + strings.ReplaceAll(l["kube_tag"], ".", "-"), COE: "kubernetes", ImageID: r.cloud.Image, FlavorID: flavor, MasterFlavorID: flavor,
		ExternalNetworkID: r.cloud.ExternalNetwork, NetworkDriver: "calico", Labels: l,
		MasterLBEnabled: &yes, FloatingIPEnabled: &yes,
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// inventory counts what the project holds, by kind (as the admin lists
// it in Nova, Neutron, Octavia and Cinder).
func (r *realOpenStack) inventory(t *testing.T) map[string][]realopenstack.Resource {
	t.Helper()
	out := map[string][]realopenstack.Resource{}
	for _, res := range r.project.Inventory(t) {
		out[res.Kind] = append(out[res.Kind], res)
	}
	return out
}

// describe lists an inventory for a failure message.
func describe(inv map[string][]realopenstack.Resource) string {
	kinds := make([]string, 0, len(inv))
	for k := range inv {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n  %s: %d", k, len(inv[k]))
		for _, res := range inv[k] {
			fmt.Fprintf(&b, "\n    %s %s", res.Name, res.ID)
		}
	}
	return b.String()
}

// tail is a log's last n lines.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// failedReason waits (up to limit) for the cluster id to be CREATE_FAILED
// and returns its status_reason.
func (r *realOpenStack) failedReason(t *testing.T, id string, limit time.Duration) string {
	t.Helper()
	var c *clusters.Cluster
	waitFor(t, limit, "CREATE_FAILED", func() bool {
		var err error
		c, err = clusters.Get(context.Background(), r.sc, id).Extract()
		return err == nil && c.Status == "CREATE_FAILED"
	})
	return c.StatusReason
}

// createOne creates a cluster of one master and one worker on the
// template tmpl and returns its uuid.
func (r *realOpenStack) createOne(t *testing.T, name, tmpl string) string {
	t.Helper()
	one := 1
	id, err := clusters.Create(context.Background(), r.sc, clusters.CreateOpts{Name: name, ClusterTemplateID: tmpl, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// inProject is r for project p of the test cloud: the same keel, CAPO and
// ORC, a Magnum client with a token of p's user. Make p before keel starts
// (cleanups run last first): its purge then runs after CAPO has stopped,
// which would otherwise go on rebuilding what the purge deletes.
func (r *realOpenStack) inProject(t *testing.T, p *realopenstack.Project) *realOpenStack {
	t.Helper()
	sc := *r.sc
	sc.MoreHeaders = map[string]string{"X-Auth-Token": p.Token(t)}
	n := *r
	n.project, n.sc = p, &sc
	return &n
}
