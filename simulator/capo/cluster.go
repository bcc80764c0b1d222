package capo

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/simulator/workload"
)

// clusterReconciler plays CAPO's OpenStackCluster controller: after one
// step the network, router, security groups and API load balancer "exist",
// the OpenStackCluster is ready and reports the control-plane endpoint, which
// is the simulated workload cluster's API server address on the loopback.
type clusterReconciler struct {
	client client.Client
	o      Options
}

func (r *clusterReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	osc := &infrav1.OpenStackCluster{}
	if err := r.client.Get(ctx, req.NamespacedName, osc); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	clusterName := osc.Labels[clusterv1.ClusterNameLabel]
	key := osc.Namespace + "/" + clusterName
	if !osc.DeletionTimestamp.IsZero() {
		// The load balancer, router and network go after one step; CAPO
		// deletes them only once every machine is gone, which Cluster API
		// ensures by deleting the OpenStackCluster last.
		if wait := due(osc.DeletionTimestamp.Time, r.o.StepDelay); wait > 0 {
			return reconcile.Result{RequeueAfter: wait}, nil
		}
		r.o.Workloads.DeleteCluster(key)
		if controllerutil.RemoveFinalizer(osc, finalizerCluster) {
			return reconcile.Result{}, client.IgnoreNotFound(r.client.Update(ctx, osc))
		}
		return reconcile.Result{}, nil
	}
	if clusterName == "" {
		return reconcile.Result{}, nil // not yet owned: CAPI labels it at once
	}
	cluster := &clusterv1.Cluster{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: osc.Namespace, Name: clusterName}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{RequeueAfter: r.o.StepDelay}, nil
		}
		return reconcile.Result{}, err
	}
	if ptr.Deref(cluster.Spec.Paused, false) {
		return reconcile.Result{}, nil
	}
	if controllerutil.AddFinalizer(osc, finalizerCluster) {
		if err := r.client.Update(ctx, osc); err != nil {
			return reconcile.Result{}, err
		}
	}
	spec := workload.ClusterSpec{Name: key}
	if n := cluster.Spec.ClusterNetwork.Services.CIDRBlocks; len(n) > 0 {
		spec.ServiceCIDR = n[0]
	}
	if ep := osc.Spec.ControlPlaneEndpoint; ep != nil && ep.Host != "" {
		spec.Port = int(ep.Port) // a restarted simulator keeps the endpoint it reported
	}
	wc, err := r.o.Workloads.EnsureCluster(spec)
	if err != nil {
		return reconcile.Result{}, err
	}
	if osc.Status.Ready {
		return reconcile.Result{}, nil
	}
	if wait := due(osc.CreationTimestamp.Time, r.o.StepDelay); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	return reconcile.Result{}, r.markReady(ctx, osc, wc)
}

// markReady writes what CAPO v0.14 writes once the cluster's OpenStack
// resources exist.
func (r *clusterReconciler) markReady(ctx context.Context, osc *infrav1.OpenStackCluster, wc *workload.Cluster) error {
	host, port := wc.Endpoint()
	if osc.Spec.ControlPlaneEndpoint == nil || osc.Spec.ControlPlaneEndpoint.Host == "" {
		orig := osc.DeepCopy()
		osc.Spec.ControlPlaneEndpoint = &clusterv1beta1.APIEndpoint{Host: host, Port: port}
		if err := r.client.Patch(ctx, osc, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("OpenStackCluster %s: control plane endpoint: %w", osc.Name, err)
		}
	}
	orig := osc.DeepCopy()
	osc.Status.Ready = true
	osc.Status.Initialization = &infrav1.ClusterInitialization{Provisioned: true}
	osc.Status.Network = &infrav1.NetworkStatusWithSubnets{
		NetworkStatus: infrav1.NetworkStatus{ID: stableUUID(osc.UID, "network"), Name: "k8s-clusterapi-cluster-" + osc.Namespace + "-" + osc.Name},
		Subnets:       []infrav1.Subnet{{ID: stableUUID(osc.UID, "subnet"), Name: "k8s-clusterapi-cluster-" + osc.Namespace + "-" + osc.Name, CIDR: "10.6.0.0/24"}},
	}
	osc.Status.APIServerLoadBalancer = &infrav1.LoadBalancer{
		ID: stableUUID(osc.UID, "loadbalancer"), Name: "k8s-clusterapi-cluster-" + osc.Namespace + "-" + osc.Name + "-kubeapi",
		IP: host, InternalIP: host,
	}
	osc.Status.FailureDomains = clusterv1beta1.FailureDomains{"nova": clusterv1beta1.FailureDomainSpec{ControlPlane: true}}
	now := time.Now()
	osc.Status.Conditions = clusterv1beta1.Conditions{
		trueCondition("Ready", now), trueCondition("NetworkReady", now),
		trueCondition("SecurityGroupsReady", now), trueCondition("APIEndpointReady", now),
	}
	if osc.Spec.ExternalNetwork != nil && !ptr.Deref(osc.Spec.DisableExternalNetwork, false) {
		// As CAPO: the external network found, a router to it made.
		name := "k8s-clusterapi-cluster-" + osc.Namespace + "-" + osc.Labels[clusterv1.ClusterNameLabel]
		osc.Status.ExternalNetwork = &infrav1.NetworkStatus{ID: stableUUID(osc.UID, "external-network"), Name: "public"}
		osc.Status.Router = &infrav1.Router{ID: stableUUID(osc.UID, "router"), Name: name}
		osc.Status.Conditions = append(osc.Status.Conditions, trueCondition("RouterReady", now))
	}
	if err := r.client.Status().Patch(ctx, osc, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("OpenStackCluster %s: status: %w", osc.Name, err)
	}
	return nil
}

// clusterKeys reads the cluster's CAs as kubeadm finds them on the first
// control-plane machine (written there from these Secrets by the bootstrap
// provider): keel renders them, or KubeadmControlPlane generates them.
func clusterKeys(ctx context.Context, r client.Reader, c *clusterv1.Cluster) (workload.ClusterSpec, error) {
	pair := func(p secret.Purpose) (pki.KeyPair, error) {
		s := &corev1.Secret{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: secret.Name(c.Name, p)}, s); err != nil {
			return pki.KeyPair{}, err
		}
		kp := pki.KeyPair{Cert: s.Data[secret.TLSCrtDataName], Key: s.Data[secret.TLSKeyDataName]}
		if len(kp.Cert) == 0 || len(kp.Key) == 0 {
			return pki.KeyPair{}, fmt.Errorf("secret %s lacks %s or %s", s.Name, secret.TLSCrtDataName, secret.TLSKeyDataName)
		}
		return kp, nil
	}
	var spec workload.ClusterSpec
	var err error
	if spec.CA, err = pair(secret.ClusterCA); err != nil {
		return spec, err
	}
	if spec.EtcdCA, err = pair(secret.EtcdCA); err != nil {
		return spec, err
	}
	if spec.ServiceAccount, err = pair(secret.ServiceAccount); err != nil {
		return spec, err
	}
	return spec, nil
}

func trueCondition(t string, now time.Time) clusterv1beta1.Condition {
	return clusterv1beta1.Condition{Type: clusterv1beta1.ConditionType(t), Status: corev1.ConditionTrue, LastTransitionTime: metaTime(now)}
}
