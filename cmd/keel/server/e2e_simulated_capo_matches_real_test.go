package server

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// The simulated CAPO (make run, the TestRealClusterAPI… tests) must write
// what the real CAPO v0.14.7 writes on the real OpenStack, as far as
// Cluster API and keel read it: the same cluster (one master, one worker,
// API load balancer) is created in both worlds, and the OpenStackCluster's
// and OpenStackMachines' status fields, conditions, providerID format and
// address types are compared. Values that differ by nature (IDs, addresses,
// the endpoint: 127.0.0.1 and a free port in the simulation, the floating
// IP and 6443 on the real cloud) are compared by their form.
func TestSimulatedCAPOMatchesRealCreate(t *testing.T) {
	ctx := context.Background()
	real := startRealOpenStackKeel(t)
	sim, simSC := startRealKeel(t)
	one := 1
	realID, err := clusters.Create(ctx, real.sc, clusters.CreateOpts{Name: "diff", ClusterTemplateID: real.template(t, nil).UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	simTmpl := realTemplate(t, simSC, "", "calico", nil)
	simCluster := createRealCluster(t, simSC, "diff", simTmpl.UUID, 1, 1)
	realCluster := waitRealStatus(t, real.sc, realID, "CREATE_COMPLETE", 15*time.Minute)

	want := shapeOf(t, real.in.Client, realCluster.StackID)
	got := shapeOf(t, sim.Client, simCluster.StackID)
	for _, k := range sortedKeys(want, got) {
		if want[k] != got[k] {
			t.Errorf("%s: simulated CAPO %q, real CAPO %q", k, got[k], want[k])
		}
	}
}

// shapeOf describes what CAPO wrote for a cluster as form → value, with
// the values that differ by nature replaced by their form.
func shapeOf(t *testing.T, c client.Client, stackID string) map[string]string {
	t.Helper()
	ctx := context.Background()
	in := []client.ListOption{client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: stackID}}
	var oscs infrav1.OpenStackClusterList
	if err := c.List(ctx, &oscs, in...); err != nil || len(oscs.Items) != 1 {
		t.Fatalf("OpenStackClusters of %s: %d (%v)", stackID, len(oscs.Items), err)
	}
	s := map[string]string{}
	osc := &oscs.Items[0]
	st := osc.Status
	s["cluster.ready"] = fmt.Sprint(st.Ready)
	s["cluster.initialization.provisioned"] = fmt.Sprint(st.Initialization != nil && st.Initialization.Provisioned)
	s["cluster.network"] = fmt.Sprint(st.Network != nil && st.Network.ID != "")
	s["cluster.network.subnets"] = fmt.Sprint(st.Network != nil && len(st.Network.Subnets) > 0)
	s["cluster.externalNetwork"] = fmt.Sprint(st.ExternalNetwork != nil && st.ExternalNetwork.ID != "")
	s["cluster.router"] = fmt.Sprint(st.Router != nil && st.Router.ID != "")
	s["cluster.apiServerLoadBalancer"] = fmt.Sprint(st.APIServerLoadBalancer != nil && st.APIServerLoadBalancer.ID != "" && st.APIServerLoadBalancer.IP != "")
	s["cluster.failureDomains"] = fmt.Sprint(len(st.FailureDomains) > 0)
	s["cluster.failureReason"] = string(ptr.Deref(st.FailureReason, ""))
	s["cluster.controlPlaneEndpoint"] = endpointForm(osc.Spec.ControlPlaneEndpoint)
	for _, cd := range st.Conditions {
		s["cluster.condition."+string(cd.Type)] = string(cd.Status) + " " + cd.Reason
	}
	var osms infrav1.OpenStackMachineList
	if err := c.List(ctx, &osms, in...); err != nil {
		t.Fatal(err)
	}
	for i := range osms.Items {
		m := &osms.Items[i]
		role := "worker"
		if _, ok := m.Labels[clusterv1.MachineControlPlaneLabel]; ok {
			role = "master"
		}
		p := "machine(" + role + ")."
		s[p+"providerID"] = uuidForm.ReplaceAllString(ptr.Deref(m.Spec.ProviderID, ""), "UUID")
		s[p+"instanceID"] = uuidForm.ReplaceAllString(ptr.Deref(m.Status.InstanceID, ""), "UUID")
		s[p+"instanceState"] = string(ptr.Deref(m.Status.InstanceState, ""))
		s[p+"ready"] = fmt.Sprint(m.Status.Ready)
		s[p+"initialization.provisioned"] = fmt.Sprint(m.Status.Initialization != nil && m.Status.Initialization.Provisioned)
		s[p+"failureReason"] = string(ptr.Deref(m.Status.FailureReason, ""))
		var types []string
		for _, a := range m.Status.Addresses {
			types = append(types, string(a.Type))
		}
		sort.Strings(types)
		s[p+"addressTypes"] = fmt.Sprint(types)
		for _, cd := range m.Status.Conditions {
			s[p+"condition."+string(cd.Type)] = string(cd.Status) + " " + cd.Reason
		}
	}
	return s
}

var uuidForm = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// endpointForm: an IP host and a port, or what is missing.
func endpointForm(ep *clusterv1beta1.APIEndpoint) string {
	switch {
	case ep == nil || ep.Host == "":
		return "unset"
	case net.ParseIP(ep.Host) == nil:
		return "hostname:port"
	case ep.Port <= 0:
		return "IP without port"
	}
	return "IP:port"
}

// sortedKeys is the union of the maps' keys, sorted.
func sortedKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
