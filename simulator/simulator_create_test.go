package simulator

import (
	"net"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

var providerIDPattern = regexp.MustCompile(`^openstack:///[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// A topology Cluster provisions to Available with every object the status
// logic reads, as CAPI, KCP and CAPO would leave them.
func TestCreateProvisionsClusterToAvailable(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 3, worker{name: "default-worker", replicas: count(2)}, worker{name: "big", replicas: count(1), flavor: "m1.xlarge"})
	applyCluster(t, c)
	waitAvailable(t, c.Name)

	got := getCluster(t, c.Name)
	if !controllerutil.ContainsFinalizer(got, clusterv1.ClusterFinalizer) {
		t.Errorf("finalizers %v, want %s", got.Finalizers, clusterv1.ClusterFinalizer)
	}
	ep := got.Spec.ControlPlaneEndpoint
	if ip := net.ParseIP(ep.Host); ip == nil || !(&net.IPNet{IP: net.IPv4(192, 0, 2, 0), Mask: net.CIDRMask(24, 32)}).Contains(ip) || ep.Port != 6443 {
		t.Errorf("controlPlaneEndpoint %v, want 192.0.2.N:6443", ep)
	}
	endpointOwner := ""
	for _, mf := range got.ManagedFields {
		if mf.FieldsV1 != nil && strings.Contains(mf.FieldsV1.GetRawString(), `"f:controlPlaneEndpoint"`) {
			endpointOwner = mf.Manager + "/" + string(mf.Operation)
		}
	}
	if endpointOwner != FieldManager+"/Apply" {
		t.Errorf("spec.controlPlaneEndpoint managed by %q, want %s/Apply", endpointOwner, FieldManager)
	}
	if got.Status.Phase != string(clusterv1.ClusterPhaseProvisioned) {
		t.Errorf("phase %q, want Provisioned", got.Status.Phase)
	}
	if !ptr.Deref(got.Status.Initialization.InfrastructureProvisioned, false) || !ptr.Deref(got.Status.Initialization.ControlPlaneInitialized, false) {
		t.Errorf("initialization %+v, want both true", got.Status.Initialization)
	}
	for _, typ := range []string{
		clusterv1.ClusterInfrastructureReadyCondition, clusterv1.ClusterControlPlaneInitializedCondition,
		clusterv1.ClusterControlPlaneAvailableCondition, clusterv1.ClusterWorkersAvailableCondition,
		clusterv1.ClusterTopologyReconciledCondition,
	} {
		if p := conditionProblem(got.Status.Conditions, typ, metav1.ConditionTrue); p != "" {
			t.Errorf("cluster: %s", p)
		}
	}
	if *got.Status.ControlPlane.ReadyReplicas != 3 || *got.Status.Workers.ReadyReplicas != 3 {
		t.Errorf("ready replicas: control plane %d, workers %d; want 3 and 3", *got.Status.ControlPlane.ReadyReplicas, *got.Status.Workers.ReadyReplicas)
	}

	kcp := getKCP(t, c.Name)
	checkKCP(t, kcp, 3)
	if !strings.HasPrefix(kcp.Name, c.Name+"-") || kcp.Labels[clusterv1.ClusterTopologyOwnedLabel] != "" {
		t.Errorf("KubeadmControlPlane %s labels %v", kcp.Name, kcp.Labels)
	}
	for ng, want := range map[string]int32{"default-worker": 2, "big": 1} {
		md := getMD(t, c.Name, ng)
		if md.Status.Phase != string(clusterv1.MachineDeploymentPhaseRunning) || ptr.Deref(md.Status.ReadyReplicas, -1) != want ||
			ptr.Deref(md.Status.UpToDateReplicas, -1) != want || md.Status.ObservedGeneration != md.Generation {
			t.Errorf("MachineDeployment %s status %+v, want Running with %d ready", md.Name, md.Status, want)
		}
		if p := conditionProblem(md.Status.Conditions, clusterv1.MachineDeploymentAvailableCondition, metav1.ConditionTrue); p != "" {
			t.Errorf("MachineDeployment %s: %s", md.Name, p)
		}
		if !strings.HasPrefix(md.Name, c.Name+"-"+ng+"-") {
			t.Errorf("MachineDeployment name %s, want %s-%s-<suffix>", md.Name, c.Name, ng)
		}
	}

	machines := listMachines(t, c.Name)
	if len(machines) != 6 {
		t.Fatalf("%d Machines, want 6", len(machines))
	}
	addresses := map[string]string{}
	for _, m := range machines {
		checkRunningMachine(t, &m)
		ip := m.Status.Addresses[0].Address
		if other, dup := addresses[ip]; dup {
			t.Errorf("Machines %s and %s share address %s", other, m.Name, ip)
		}
		addresses[ip] = m.Name
		om := getInfraMachine(t, m.Name)
		flavor, image := ptr.Deref(om.Spec.Flavor, ""), ptr.Deref(om.Spec.Image.ID, "")
		wantFlavor := testFlavor
		switch {
		case hasLabel(&m, clusterv1.MachineControlPlaneLabel):
			wantFlavor = testCPFlavor
		case m.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel] == "big":
			wantFlavor = "m1.xlarge"
		}
		if flavor != wantFlavor || image != testImage {
			t.Errorf("OpenStackMachine %s: flavor %q image %q, want %q and %q", m.Name, flavor, image, wantFlavor, testImage)
		}
		if pid := ptr.Deref(om.Spec.ProviderID, ""); pid != m.Spec.ProviderID {
			t.Errorf("OpenStackMachine %s providerID %q, Machine has %q", m.Name, pid, m.Spec.ProviderID)
		}
	}

	infras := listInfra(t, kindOpenStackCluster, c.Name)
	if len(infras) != 1 || !infraReady(infras[0].(*infrav1.OpenStackCluster)) || infras[0].GetOwnerReferences()[0].UID != got.UID {
		t.Errorf("OpenStackClusters %v, want one, ready, owned by the Cluster", infras)
	}

	events := clusterEvents(t, c.Name)
	for _, reason := range []string{EventProvisioning, EventInfrastructureReady, EventMachineCreated, EventMachineProvisioned, EventProvisioned} {
		if findEvent(events, reason) == nil {
			t.Errorf("no %s event on the Cluster", reason)
		}
	}

	// keel applies the Cluster again (forced, as always): no conflict, and
	// the simulator's endpoint stays.
	applyCluster(t, c)
	if again := getCluster(t, c.Name); again.Spec.ControlPlaneEndpoint != ep {
		t.Errorf("after keel's apply the endpoint is %v, want %v", again.Spec.ControlPlaneEndpoint, ep)
	}
}

// A simulator stopped half-way and started again finishes the cluster
// without making anything twice.
func TestCreateSurvivesSimulatorRestart(t *testing.T) {
	stop := runSimulator(t)
	c := newCluster(t, 3, worker{name: "default-worker", replicas: count(2)})
	applyCluster(t, c)
	eventually(t, "first control plane Machine", func() string {
		if len(controlPlaneMachines(t, c.Name)) == 0 {
			return "no control plane Machine yet"
		}
		return ""
	})
	stop()
	startSimulator(t)
	waitAvailable(t, c.Name)
	if n := len(controlPlaneMachines(t, c.Name)); n != 3 {
		t.Errorf("%d control plane Machines, want 3", n)
	}
	if n := len(workerMachines(t, c.Name, "default-worker")); n != 2 {
		t.Errorf("%d worker Machines, want 2", n)
	}
	if n := len(listInfra(t, kindOpenStackCluster, c.Name)); n != 1 {
		t.Errorf("%d OpenStackClusters, want 1", n)
	}
	getKCP(t, c.Name) // exactly one
}

func hasLabel(m *clusterv1.Machine, key string) bool {
	_, ok := m.Labels[key]
	return ok
}

func checkKCP(t *testing.T, kcp *controlplanev1.KubeadmControlPlane, want int32) {
	t.Helper()
	st := kcp.Status
	if ptr.Deref(st.Replicas, -1) != want || ptr.Deref(st.ReadyReplicas, -1) != want ||
		ptr.Deref(st.AvailableReplicas, -1) != want || ptr.Deref(st.UpToDateReplicas, -1) != want {
		t.Errorf("KubeadmControlPlane %s status replicas %v/%v/%v/%v, want %d", kcp.Name,
			ptr.Deref(st.Replicas, -1), ptr.Deref(st.ReadyReplicas, -1), ptr.Deref(st.AvailableReplicas, -1), ptr.Deref(st.UpToDateReplicas, -1), want)
	}
	if st.ObservedGeneration != kcp.Generation {
		t.Errorf("KubeadmControlPlane observedGeneration %d, generation %d", st.ObservedGeneration, kcp.Generation)
	}
	if !ptr.Deref(st.Initialization.ControlPlaneInitialized, false) {
		t.Error("KubeadmControlPlane not initialized")
	}
	if p := conditionProblem(st.Conditions, controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue); p != "" {
		t.Errorf("KubeadmControlPlane: %s", p)
	}
}

func checkRunningMachine(t *testing.T, m *clusterv1.Machine) {
	t.Helper()
	if m.Status.Phase != string(clusterv1.MachinePhaseRunning) {
		t.Errorf("Machine %s phase %q, want Running", m.Name, m.Status.Phase)
	}
	if !providerIDPattern.MatchString(m.Spec.ProviderID) {
		t.Errorf("Machine %s providerID %q, want openstack:///<uuid>", m.Name, m.Spec.ProviderID)
	}
	if len(m.Status.Addresses) != 1 || m.Status.Addresses[0].Type != clusterv1.MachineInternalIP ||
		!strings.HasPrefix(m.Status.Addresses[0].Address, "10.0.0.") {
		t.Errorf("Machine %s addresses %v, want one InternalIP 10.0.0.N", m.Name, m.Status.Addresses)
	}
	if m.Status.NodeRef.Name == "" {
		t.Errorf("Machine %s has no nodeRef", m.Name)
	}
	for _, typ := range []string{clusterv1.MachineReadyCondition, clusterv1.MachineNodeHealthyCondition, clusterv1.MachineAvailableCondition, clusterv1.MachineUpToDateCondition} {
		if !meta.IsStatusConditionTrue(m.Status.Conditions, typ) {
			t.Errorf("Machine %s: %s", m.Name, conditionProblem(m.Status.Conditions, typ, metav1.ConditionTrue))
		}
	}
	if m.Labels[clusterv1.ClusterNameLabel] == "" {
		t.Errorf("Machine %s has no cluster-name label", m.Name)
	}
	if !hasLabel(m, clusterv1.MachineControlPlaneLabel) && m.Labels[clusterv1.MachineDeploymentNameLabel] == "" {
		t.Errorf("worker Machine %s has no deployment-name label", m.Name)
	}
}
