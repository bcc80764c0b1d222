package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	testStepDelay = 50 * time.Millisecond
	// testTimeout bounds every wait: a cluster of a few Machines needs about
	// a second at testStepDelay.
	testTimeout = 30 * time.Second

	testImage      = "5f1e0f2e-8c43-4b8e-9d0e-3c1f6a0b1c2d"
	testImageNew   = "7a9b3c4d-1e2f-4a5b-8c6d-9e0f1a2b3c4d"
	testCPFlavor   = "m1.medium"
	testFlavor     = "m1.small"
	testVersion    = "v1.33.4"
	testVersionNew = "v1.34.1"
)

// startSimulator runs a simulator until the end of the test and checks that
// it stops cleanly.
func startSimulator(t *testing.T) {
	t.Helper()
	stop := runSimulator(t)
	t.Cleanup(stop)
}

// runSimulator starts a simulator and returns the function that stops it.
func runSimulator(t *testing.T) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, env.Config, Options{StepDelay: testStepDelay}) }()
	return func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("simulator stopped with: %v", err)
			}
		case <-time.After(testTimeout):
			t.Errorf("simulator did not stop within %s", testTimeout)
		}
	}
}

// worker is one topology MachineDeployment entry, as the compiler renders a
// nodegroup.
type worker struct {
	name     string
	replicas *int32 // nil: autoscaled between min and max
	min, max string
	flavor   string // override of the cluster flavor
	image    string // override of the cluster image
}

func count(n int32) *int32 { return &n }

func jsonValue(t *testing.T, v any) apiextensionsv1.JSON {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return apiextensionsv1.JSON{Raw: b}
}

// newCluster builds a Cluster the way keel's compiler renders one.
func newCluster(t *testing.T, cpReplicas int32, workers ...worker) *clusterv1.Cluster {
	t.Helper()
	name := "kube-" + utilrand.String(5)
	vars := []clusterv1.ClusterVariable{
		{Name: "apiServerLoadBalancer", Value: jsonValue(t, map[string]any{"enabled": false})},
		{Name: varClusterIdentityRefName, Value: jsonValue(t, name+"-cloud-config")},
		{Name: varControlPlaneFlavor, Value: jsonValue(t, testCPFlavor)},
		{Name: "externalNetworkId", Value: jsonValue(t, "")},
		{Name: varFlavor, Value: jsonValue(t, testFlavor)},
		{Name: varImageUUID, Value: jsonValue(t, testImage)},
		{Name: "sshKeyName", Value: jsonValue(t, "")},
	}
	c := &clusterv1.Cluster{
		TypeMeta: metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: kube.Namespace,
			Labels:    map[string]string{"cluster-uuid": utilrand.String(8)},
		},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{
				Pods:          clusterv1.NetworkRanges{CIDRBlocks: []string{"10.100.0.0/16"}},
				Services:      clusterv1.NetworkRanges{CIDRBlocks: []string{"10.254.0.0/16"}},
				ServiceDomain: "cluster.local",
			},
			Topology: clusterv1.Topology{
				ClassRef:     clusterv1.ClusterClassRef{Name: "magnum-v0.1.0"},
				Version:      testVersion,
				ControlPlane: clusterv1.ControlPlaneTopology{Replicas: count(cpReplicas)},
				Variables:    vars,
			},
		},
	}
	for _, w := range workers {
		md := clusterv1.MachineDeploymentTopology{
			Class:    "default-worker",
			Name:     w.name,
			Replicas: w.replicas,
			Metadata: clusterv1.ObjectMeta{Labels: map[string]string{
				"node-role.kubernetes.io/worker":  "",
				"node.cluster.x-k8s.io/nodegroup": w.name,
			}},
		}
		if w.replicas == nil {
			md.Metadata.Annotations = map[string]string{
				clusterv1.AutoscalerMinSizeAnnotation: w.min,
				clusterv1.AutoscalerMaxSizeAnnotation: w.max,
			}
		}
		if w.flavor != "" {
			md.Variables.Overrides = append(md.Variables.Overrides, clusterv1.ClusterVariable{Name: varFlavor, Value: jsonValue(t, w.flavor)})
		}
		if w.image != "" {
			md.Variables.Overrides = append(md.Variables.Overrides, clusterv1.ClusterVariable{Name: varImageUUID, Value: jsonValue(t, w.image)})
		}
		c.Spec.Topology.Workers.MachineDeployments = append(c.Spec.Topology.Workers.MachineDeployments, md)
	}
	return c
}

// applyCluster server-side applies c as keel does: field manager "keel",
// forced, without status or server-set metadata.
func applyCluster(t *testing.T, c *clusterv1.Cluster) {
	t.Helper()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	if err := env.Client.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
		t.Fatalf("applying cluster %s as keel: %v", c.Name, err)
	}
}

// eventually polls check every 20ms until it returns "" or testTimeout
// passes, then fails with check's last complaint.
func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		complaint := check()
		if complaint == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, testTimeout, complaint)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func getCluster(t *testing.T, name string) *clusterv1.Cluster {
	t.Helper()
	var c clusterv1.Cluster
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: name}, &c); err != nil {
		t.Fatalf("reading cluster %s: %v", name, err)
	}
	return &c
}

// conditionProblem is "" when the condition is there with that status, else
// what is wrong.
func conditionProblem(conds []metav1.Condition, typ string, status metav1.ConditionStatus) string {
	c := meta.FindStatusCondition(conds, typ)
	if c == nil {
		return typ + " is missing"
	}
	if c.Status != status {
		return fmt.Sprintf("%s is %s (%s: %s)", typ, c.Status, c.Reason, c.Message)
	}
	return ""
}

// waitAvailable waits for the Cluster to be Available with every Machine
// the topology asks for running and up to date.
func waitAvailable(t *testing.T, name string) {
	t.Helper()
	eventually(t, "cluster "+name+" available", func() string {
		c := getCluster(t, name)
		if p := conditionProblem(c.Status.Conditions, clusterv1.ClusterAvailableCondition, metav1.ConditionTrue); p != "" {
			return p
		}
		if c.Status.ObservedGeneration != c.Generation {
			return fmt.Sprintf("observedGeneration %d, generation %d", c.Status.ObservedGeneration, c.Generation)
		}
		st := c.Status.ControlPlane
		if st == nil || *st.Replicas != *st.DesiredReplicas || *st.UpToDateReplicas != *st.DesiredReplicas || *st.ReadyReplicas != *st.DesiredReplicas {
			return fmt.Sprintf("control plane not settled: %+v", st)
		}
		w := c.Status.Workers
		if w == nil || *w.Replicas != *w.DesiredReplicas || *w.UpToDateReplicas != *w.DesiredReplicas || *w.ReadyReplicas != *w.DesiredReplicas {
			return fmt.Sprintf("workers not settled: %+v", w)
		}
		// The Cluster's counts may predate a change made to a
		// MachineDeployment (the autoscaler's): its own status must have
		// caught up with its spec too.
		var mds clusterv1.MachineDeploymentList
		if err := env.Client.List(context.Background(), &mds, client.InNamespace(kube.Namespace),
			client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
			t.Fatal(err)
		}
		for _, md := range mds.Items {
			want := ptr.Deref(md.Spec.Replicas, -1)
			if md.Status.ObservedGeneration != md.Generation || ptr.Deref(md.Status.ReadyReplicas, -1) != want ||
				ptr.Deref(md.Status.UpToDateReplicas, -1) != want || ptr.Deref(md.Status.Replicas, -1) != want {
				return fmt.Sprintf("MachineDeployment %s not settled: generation %d, status %+v", md.Name, md.Generation, md.Status)
			}
		}
		kcp := getKCP(t, name)
		if want := ptr.Deref(kcp.Spec.Replicas, -1); kcp.Status.ObservedGeneration != kcp.Generation ||
			ptr.Deref(kcp.Status.ReadyReplicas, -1) != want || ptr.Deref(kcp.Status.UpToDateReplicas, -1) != want {
			return fmt.Sprintf("KubeadmControlPlane %s not settled: generation %d, status %+v", kcp.Name, kcp.Generation, kcp.Status)
		}
		return ""
	})
}

func listMachines(t *testing.T, cluster string) []clusterv1.Machine {
	t.Helper()
	var l clusterv1.MachineList
	if err := env.Client.List(context.Background(), &l, client.InNamespace(kube.Namespace),
		client.MatchingLabels{clusterv1.ClusterNameLabel: cluster}); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// workerMachines are the Machines of the topology MachineDeployment ng.
func workerMachines(t *testing.T, cluster, ng string) []clusterv1.Machine {
	t.Helper()
	md := getMD(t, cluster, ng)
	var out []clusterv1.Machine
	for _, m := range listMachines(t, cluster) {
		if m.Labels[clusterv1.MachineDeploymentNameLabel] == md.Name {
			out = append(out, m)
		}
	}
	return out
}

func controlPlaneMachines(t *testing.T, cluster string) []clusterv1.Machine {
	t.Helper()
	var out []clusterv1.Machine
	for _, m := range listMachines(t, cluster) {
		if _, ok := m.Labels[clusterv1.MachineControlPlaneLabel]; ok {
			out = append(out, m)
		}
	}
	return out
}

func getKCP(t *testing.T, cluster string) *controlplanev1.KubeadmControlPlane {
	t.Helper()
	var l controlplanev1.KubeadmControlPlaneList
	if err := env.Client.List(context.Background(), &l, client.InNamespace(kube.Namespace),
		client.MatchingLabels{clusterv1.ClusterNameLabel: cluster}); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 {
		t.Fatalf("cluster %s has %d KubeadmControlPlanes, want 1", cluster, len(l.Items))
	}
	return &l.Items[0]
}

// getMD finds a MachineDeployment as the status logic does: by the
// cluster-name and topology deployment-name labels.
func getMD(t *testing.T, cluster, ng string) *clusterv1.MachineDeployment {
	t.Helper()
	var l clusterv1.MachineDeploymentList
	if err := env.Client.List(context.Background(), &l, client.InNamespace(kube.Namespace), client.MatchingLabels{
		clusterv1.ClusterNameLabel:                          cluster,
		clusterv1.ClusterTopologyMachineDeploymentNameLabel: ng,
	}); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 {
		t.Fatalf("cluster %s has %d MachineDeployments for %s, want 1", cluster, len(l.Items), ng)
	}
	return &l.Items[0]
}

// listInfra lists the CAPO objects of one kind of a cluster.
func listInfra(t *testing.T, kind, cluster string) []client.Object {
	t.Helper()
	var l client.ObjectList
	switch kind {
	case kindOpenStackCluster:
		l = &infrav1.OpenStackClusterList{}
	case kindOpenStackMachine:
		l = &infrav1.OpenStackMachineList{}
	case kindOpenStackMachineTemplate:
		l = &infrav1.OpenStackMachineTemplateList{}
	default:
		t.Fatalf("listInfra: unknown kind %s", kind)
	}
	if err := env.Client.List(context.Background(), l, client.InNamespace(kube.Namespace),
		client.MatchingLabels{clusterv1.ClusterNameLabel: cluster}); err != nil {
		t.Fatal(err)
	}
	var out []client.Object
	if err := meta.EachListItem(l, func(o runtime.Object) error {
		out = append(out, o.(client.Object))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func getInfraMachine(t *testing.T, name string) *infrav1.OpenStackMachine {
	t.Helper()
	u := &infrav1.OpenStackMachine{ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: name}}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(u), u); err != nil {
		t.Fatalf("reading OpenStackMachine %s: %v", name, err)
	}
	return u
}

// clusterEvents lists the Events of a Cluster, oldest first, as the status
// logic reads them.
func clusterEvents(t *testing.T, cluster string) []corev1.Event {
	t.Helper()
	var l corev1.EventList
	if err := env.Client.List(context.Background(), &l, client.InNamespace(kube.Namespace)); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range l.Items {
		if e.InvolvedObject.Kind == "Cluster" && e.InvolvedObject.Name == cluster {
			out = append(out, e)
		}
	}
	return out
}

// findEvent returns the first Event of the cluster with that reason whose
// message contains every part.
func findEvent(events []corev1.Event, reason string, parts ...string) *corev1.Event {
	for i, e := range events {
		if e.Reason != reason {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(e.Message, p)
		}
		if ok {
			return &events[i]
		}
	}
	return nil
}

func names(ms []clusterv1.Machine) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m.Name] = true
	}
	return out
}

func deleteCluster(t *testing.T, name string) {
	t.Helper()
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: name}}
	if err := env.Client.Delete(context.Background(), c); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting cluster %s: %v", name, err)
	}
}

// waitEvent waits for an Event on the Cluster with reason whose message
// holds every part: the simulator writes an Event right after the change it
// reports, so a test that saw the change may be a moment early.
func waitEvent(t *testing.T, cluster, reason string, parts ...string) {
	t.Helper()
	eventually(t, fmt.Sprintf("a %s event %v", reason, parts), func() string {
		if findEvent(clusterEvents(t, cluster), reason, parts...) == nil {
			return "not yet"
		}
		return ""
	})
}
