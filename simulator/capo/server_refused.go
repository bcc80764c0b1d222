package capo

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// AnnotationRefuseServers on a Cluster makes Nova refuse to create every
// server of the cluster that does not exist yet, as it refuses one over the
// project's quota (a 403): its value is Nova's message (e.g. "Quota
// exceeded for instances: Requested 1, but already used 3 of 3
// instances"). Unlike AnnotationFailMachines (a server created, then in
// ERROR), no server exists.
const AnnotationRefuseServers = "simulator.keel.openkeel.io/refuse-servers"

// refuse writes what the real CAPO v0.14.7 writes when Nova refuses the
// create: its OpenStackServer (of the OpenStackMachine's name) in ERROR,
// InstanceReady False InstanceCreateFailed with gophercloud's error, and
// nothing on the OpenStackMachine, which waits for that server for ever.
func (r *machineReconciler) refuse(ctx context.Context, osm *infrav1.OpenStackMachine, msg string) error {
	r.o.Logger.Info("simulating Nova refusing a server", "machine", osm.Name, "message", msg)
	return r.failedServer(ctx, osm, infrav1.InstanceCreateFailedReason,
		`error creating Openstack instance: Expected HTTP response code [200 202] when accessing [POST http://nova.simulated.invalid/v2.1/servers], but got 403 instead: {"forbidden": {"code": 403, "message": "`+msg+`"}}`)
}

// failedServer writes the OpenStackServer of the OpenStackMachine in
// ERROR, InstanceReady False with reason and message, as CAPO does for a
// server that will never come up.
func (r *machineReconciler) failedServer(ctx context.Context, osm *infrav1.OpenStackMachine, reason, message string) error {
	oss := &infrav1alpha1.OpenStackServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: osm.Namespace, Name: osm.Name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: osm.Labels[clusterv1.ClusterNameLabel]}},
		Spec: infrav1alpha1.OpenStackServerSpec{
			Flavor: osm.Spec.Flavor, Image: osm.Spec.Image, Ports: osm.Spec.Ports,
			IdentityRef: ptr.Deref(osm.Spec.IdentityRef, infrav1.OpenStackIdentityReference{
				Type: "Secret", Name: osm.Labels[clusterv1.ClusterNameLabel] + "-cloud-config", CloudName: "default"}),
		},
	}
	if len(oss.Spec.Ports) == 0 {
		oss.Spec.Ports = []infrav1.PortOpts{{}}
	}
	if err := controllerutil.SetControllerReference(osm, oss, r.client.Scheme()); err != nil {
		return err
	}
	if err := r.client.Create(ctx, oss); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil // refused once; CAPO never retries
		}
		return fmt.Errorf("OpenStackServer %s: %w", oss.Name, err)
	}
	oss.Status = infrav1alpha1.OpenStackServerStatus{
		InstanceState: ptr.To(infrav1.InstanceStateError),
		Conditions: clusterv1beta1.Conditions{{
			Type: infrav1.InstanceReadyCondition, Status: corev1.ConditionFalse, Severity: clusterv1beta1.ConditionSeverityError,
			Reason: reason, Message: message, LastTransitionTime: metav1.Now(),
		}},
	}
	return r.client.Status().Update(ctx, oss)
}
