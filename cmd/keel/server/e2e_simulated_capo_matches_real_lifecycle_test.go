package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/quotasets"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/simulator/capo"
)

// The simulated CAPO (make run, the TestRealClusterAPI… tests) must write
// what the real CAPO v0.14.7 writes on the real OpenStack, as far as
// Cluster API and keel read it. The same scenario runs in both worlds: a
// create (one master, one worker, API load balancer), a resize to two
// workers, a resize Nova refuses (the project's instance quota reached; in
// the simulation, capo.AnnotationRefuseServers with Nova's message), and a
// delete. After each step the OpenStackCluster's and OpenStackMachines'
// status fields, conditions, providerID format and address types, and
// what keel reports (status, status_reason), are compared. Values that
// differ by nature (IDs, addresses, names, the endpoint: 127.0.0.1 and a
// free port in the simulation, the floating IP and 6443 on the real cloud)
// are compared by their form.
func TestSimulatedCAPOMatchesRealLifecycle(t *testing.T) {
	t.Parallel() // waits on OpenStack and CAPO far more than it computes
	ctx := context.Background()
	real := startRealOpenStackKeel(t)
	sim, simSC := startRealKeel(t)
	one, two := 1, 2
	realID, err := clusters.Create(ctx, real.sc, clusters.CreateOpts{Name: "diff", ClusterTemplateID: real.template(t, nil).UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	simCluster := createRealCluster(t, simSC, "diff", realTemplate(t, simSC, "", "calico", nil).UUID, 1, 1)
	realCluster := waitRealStatus(t, real.sc, realID, "CREATE_COMPLETE", 15*time.Minute)
	w := worlds{t: t, real: real, sim: sim, simSC: simSC, realID: realID, simID: simCluster.UUID,
		realStack: realCluster.StackID, simStack: simCluster.StackID}
	w.compare("after the create")

	w.resize(two, "UPDATE_COMPLETE")
	w.compare("after the resize to 2")

	// Nova refuses the third worker: the quota is what the project uses.
	compute, err := gcos.NewComputeV2(real.cloud.Admin(t), real.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	three := 3
	if _, err := quotasets.Update(ctx, compute, real.project.ID, quotasets.UpdateOpts{Instances: &three}).Extract(); err != nil {
		t.Fatalf("setting the project's instance quota: %v", err)
	}
	annotate(t, sim, w.simStack, capo.AnnotationRefuseServers, "Quota exceeded for instances: Requested 1, but already used 3 of 3 instances")
	realFailed, simFailed := w.resize(three, "UPDATE_FAILED")
	if !strings.Contains(realFailed.StatusReason, "Quota exceeded for instances") {
		t.Errorf("real CAPO: status_reason %q does not name Nova's quota error", realFailed.StatusReason)
	}
	if got, want := reasonForm(simFailed.StatusReason), reasonForm(realFailed.StatusReason); got != want {
		t.Errorf("status_reason after the refused server: simulated CAPO %q, real CAPO %q", got, want)
	}
	w.compare("after the refused server")

	w.delete()
}

// worlds is one scenario in the two worlds.
type worlds struct {
	t                   *testing.T
	real                *realOpenStack
	sim                 *Instance
	simSC               *gophercloud.ServiceClient
	realID, simID       string
	realStack, simStack string
}

// compare fails where what CAPO wrote differs between the worlds.
func (w worlds) compare(when string) {
	w.t.Helper()
	want := shapeOf(w.t, w.real.in.Client, w.realStack)
	got := shapeOf(w.t, w.sim.Client, w.simStack)
	for _, k := range sortedKeys(want, got) {
		if want[k] != got[k] {
			w.t.Errorf("%s: %s: simulated CAPO %q, real CAPO %q", when, k, got[k], want[k])
		}
	}
}

// world is one of the two: keel's API, the cluster, its management cluster.
type world struct {
	name  string
	sc    *gophercloud.ServiceClient
	id    string
	in    *Instance
	stack string
}

func (w worlds) both() []world {
	return []world{{"real", w.real.sc, w.realID, w.real.in, w.realStack}, {"simulated", w.simSC, w.simID, w.sim, w.simStack}}
}

// resize resizes both clusters' default nodegroup and waits for status in
// both.
func (w worlds) resize(n int, status string) (real, sim *clusters.Cluster) {
	w.t.Helper()
	for _, c := range w.both() {
		if _, err := clusters.Resize(context.Background(), c.sc, c.id, clusters.ResizeOpts{NodeCount: &n}).Extract(); err != nil {
			w.t.Fatal(err)
		}
	}
	return waitRealStatus(w.t, w.real.sc, w.realID, status, 10*time.Minute), waitRealStatus(w.t, w.simSC, w.simID, status, 5*time.Minute)
}

// delete deletes both clusters: both are gone from the API, and neither
// world keeps a CAPO object of the cluster.
func (w worlds) delete() {
	w.t.Helper()
	ctx := context.Background()
	for _, c := range w.both() {
		if err := clusters.Delete(ctx, c.sc, c.id).ExtractErr(); err != nil {
			w.t.Fatal(err)
		}
	}
	for _, c := range w.both() {
		waitFor(w.t, 10*time.Minute, c.name+" cluster to be gone", func() bool {
			_, err := clusters.Get(ctx, c.sc, c.id).Extract()
			return gophercloud.ResponseCodeIs(err, 404)
		})
		if left := capoObjectsOf(w.t, c.in.Client, c.stack); left != 0 {
			w.t.Errorf("%s CAPO: %d OpenStackCluster/OpenStackMachine/OpenStackServer objects left after the delete", c.name, left)
		}
	}
}

// capoObjectsOf counts the CAPO objects of a cluster.
func capoObjectsOf(t *testing.T, c client.Client, stackID string) int {
	t.Helper()
	in := []client.ListOption{client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: stackID}}
	var oscs infrav1.OpenStackClusterList
	var osms infrav1.OpenStackMachineList
	var osss infrav1alpha1.OpenStackServerList
	for _, l := range []client.ObjectList{&oscs, &osms, &osss} {
		if err := c.List(context.Background(), l, in...); err != nil {
			t.Fatal(err)
		}
	}
	return len(oscs.Items) + len(osms.Items) + len(osss.Items)
}

// annotate sets an annotation on a CAPI Cluster.
func annotate(t *testing.T, in *Instance, stackID, key, value string) {
	t.Helper()
	var cl clusterv1.Cluster
	if err := in.Client.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: stackID}, &cl); err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Client.Patch(context.Background(), &cl, client.RawPatch(types.MergePatchType, body)); err != nil {
		t.Fatal(err)
	}
}

// Forms of what differs by nature in a status_reason.
var (
	stackForm = regexp.MustCompile(`kube-[a-z0-9]{5}[a-z0-9-]*`)
	urlForm   = regexp.MustCompile(`https?://[^ \]]+`)
)

// reasonForm is a status_reason with names and URLs replaced by their form.
func reasonForm(reason string) string {
	return urlForm.ReplaceAllString(stackForm.ReplaceAllString(reason, "NAME"), "URL")
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
	// Several machines of a role differ from each other (after the refused
	// server, two workers run and one waits), and the API lists them in
	// the order of their random names: each field is the sorted list of
	// the role's values, so the worlds compare as sets of machines.
	machines := map[string][]string{}
	for i := range osms.Items {
		for k, v := range machineShape(&osms.Items[i]) {
			machines[k] = append(machines[k], v)
		}
	}
	for k, vs := range machines {
		sort.Strings(vs)
		s[k] = strings.Join(vs, " | ")
	}
	return s
}

// machineShape is what CAPO wrote on one OpenStackMachine, keyed by its
// role and field.
func machineShape(m *infrav1.OpenStackMachine) map[string]string {
	role := "worker"
	if _, ok := m.Labels[clusterv1.MachineControlPlaneLabel]; ok {
		role = "master"
	}
	p := "machine(" + role + ")."
	s := map[string]string{
		p + "providerID":                 uuidForm.ReplaceAllString(ptr.Deref(m.Spec.ProviderID, ""), "UUID"),
		p + "instanceID":                 uuidForm.ReplaceAllString(ptr.Deref(m.Status.InstanceID, ""), "UUID"),
		p + "instanceState":              string(ptr.Deref(m.Status.InstanceState, "")),
		p + "ready":                      fmt.Sprint(m.Status.Ready),
		p + "initialization.provisioned": fmt.Sprint(m.Status.Initialization != nil && m.Status.Initialization.Provisioned),
		p + "failureReason":              string(ptr.Deref(m.Status.FailureReason, "")),
	}
	var types []string
	for _, a := range m.Status.Addresses {
		types = append(types, string(a.Type))
	}
	sort.Strings(types)
	s[p+"addressTypes"] = fmt.Sprint(types)
	for _, cd := range m.Status.Conditions {
		s[p+"condition."+string(cd.Type)] = string(cd.Status) + " " + cd.Reason
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
