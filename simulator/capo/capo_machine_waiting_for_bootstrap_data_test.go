package capo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/simulator/capo"
)

// A machine the simulated CAPO cannot start yet says why, as CAPO v0.14.7
// says it: a worker whose bootstrap data never comes (Nova refuses the
// control plane's server, so the control plane never initializes) is
// InstanceReady and Ready False, WaitingForBootstrapData, severity Info,
// for as long as it waits.
func TestMachineWithoutBootstrapDataSaysItWaits(t *testing.T) {
	const name = "kube-waiting"
	applyCluster(t, name, 1, 1, func(u *unstructured.Unstructured) {
		if u.GetKind() == "Cluster" {
			u.SetAnnotations(map[string]string{capo.AnnotationRefuseServers: "Quota exceeded for instances: Requested 1, but already used 1 of 1 instances"})
		}
	})
	t.Cleanup(func() { deleteCluster(t, name) })
	eventually(t, 2*time.Minute, "the worker's OpenStackMachine waiting for its bootstrap data", func() error {
		var osms infrav1.OpenStackMachineList
		if err := env.Client.List(context.Background(), &osms, client.InNamespace(kube.Namespace),
			client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
			return err
		}
		for _, m := range osms.Items {
			if _, cp := m.Labels[clusterv1.MachineControlPlaneLabel]; !cp {
				return waitsForBootstrapData(m.Status.Conditions)
			}
		}
		return fmt.Errorf("no worker OpenStackMachine among %d", len(osms.Items))
	})
}

// waitsForBootstrapData: InstanceReady and Ready False, the reason
// WaitingForBootstrapData, severity Info, no message.
func waitsForBootstrapData(cs clusterv1beta1.Conditions) error {
	for _, typ := range []clusterv1beta1.ConditionType{infrav1.InstanceReadyCondition, clusterv1beta1.ReadyCondition} {
		var got *clusterv1beta1.Condition
		for i := range cs {
			if cs[i].Type == typ {
				got = &cs[i]
			}
		}
		if got == nil || got.Status != "False" || got.Reason != infrav1.WaitingForBootstrapDataReason ||
			got.Severity != clusterv1beta1.ConditionSeverityInfo || got.Message != "" {
			return fmt.Errorf("%s = %+v, want False %s (Info)", typ, got, infrav1.WaitingForBootstrapDataReason)
		}
	}
	return nil
}
