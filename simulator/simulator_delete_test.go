package simulator

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Deleting a Cluster tears down workers, control plane and infrastructure,
// then removes the finalizer so that the Cluster goes away.
func TestDeleteTearsDownAndRemovesFinalizer(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 3, worker{name: "default-worker", replicas: count(2)})
	applyCluster(t, c)
	waitAvailable(t, c.Name)

	deleteCluster(t, c.Name)
	waitClusterGone(t, c.Name)
	if findEvent(clusterEvents(t, c.Name), EventDeleting) == nil {
		t.Error("no Deleting event on the Cluster")
	}
}

// The pause annotation freezes provisioning, not deletion: a cluster that
// timed out can still be deleted.
func TestDeletePausedCluster(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 1)
	c.Annotations = map[string]string{AnnotationPause: "true"}
	applyCluster(t, c)
	eventually(t, "finalizer added", func() string {
		if got := getCluster(t, c.Name); len(got.Finalizers) == 0 {
			return "no finalizer yet"
		}
		return ""
	})
	deleteCluster(t, c.Name)
	waitClusterGone(t, c.Name)
}

// waitClusterGone waits for the Cluster and everything the simulator made
// for it to disappear.
func waitClusterGone(t *testing.T, name string) {
	t.Helper()
	sawDeleting := false
	eventually(t, "cluster "+name+" gone", func() string {
		var c clusterv1.Cluster
		err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: "magnum-system", Name: name}, &c)
		if err == nil {
			sawDeleting = sawDeleting || c.Status.Phase == string(clusterv1.ClusterPhaseDeleting)
			return fmt.Sprintf("cluster still exists (phase %s, finalizers %v)", c.Status.Phase, c.Finalizers)
		}
		if !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		if n := len(listMachines(t, name)); n > 0 {
			return fmt.Sprintf("%d Machines left", n)
		}
		for _, kind := range []string{kindOpenStackCluster, kindOpenStackMachine, kindOpenStackMachineTemplate} {
			if n := len(listInfra(t, kind, name)); n > 0 {
				return fmt.Sprintf("%d %ss left", n, kind)
			}
		}
		var mds clusterv1.MachineDeploymentList
		if err := env.Client.List(context.Background(), &mds, client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
			t.Fatal(err)
		}
		if len(mds.Items) > 0 {
			return fmt.Sprintf("%d MachineDeployments left", len(mds.Items))
		}
		return ""
	})
	t.Logf("phase Deleting observed while polling: %v", sawDeleting)
}
