package clusterapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	capov1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1" //nolint:staticcheck // CAPO v0.14's endpoint type
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/internal/kube"
)

// What keel renders for a cluster is admitted by Cluster API's webhooks, and
// the real topology controller turns it into a KubeadmControlPlane, a
// MachineDeployment and OpenStackMachineTemplates with the cluster's
// replicas, version and flavors. Once CAPO (played here by hand) reports
// the OpenStackCluster ready with an endpoint, the kubeadm control plane
// controller creates the first control-plane Machine and the kubeadm
// bootstrap controller renders its bootstrap data Secret. Going further
// needs the workload cluster's API server.
func TestTopologyOfKeelRenderedCluster(t *testing.T) {
	ctx := context.Background()
	c := env.Client
	class, cluster := renderDemo(t)
	apply(t, class)
	// The Cluster webhook checks the topology's variables against the
	// ClusterClass status, which the ClusterClass controller fills in.
	eventually(t, 30*time.Second, "ClusterClass reconciled", func() error {
		var cc clusterv1.ClusterClass
		if err := c.Get(ctx, client.ObjectKeyFromObject(class[0]), &cc); err != nil {
			return err
		}
		if cc.Kind != "" && cc.Kind != "ClusterClass" {
			return fmt.Errorf("first rendered object is a %s", cc.Kind)
		}
		if cc.Status.ObservedGeneration != cc.Generation {
			return fmt.Errorf("observed generation %d of %d", cc.Status.ObservedGeneration, cc.Generation)
		}
		return nil
	})
	apply(t, cluster)

	inCluster := client.MatchingLabels{clusterv1.ClusterNameLabel: demoClusterName}
	ns := client.InNamespace(kube.Namespace)
	var kcp controlplanev1.KubeadmControlPlane
	var md clusterv1.MachineDeployment
	eventually(t, 60*time.Second, "KubeadmControlPlane and MachineDeployment created", func() error {
		var kcps controlplanev1.KubeadmControlPlaneList
		var mds clusterv1.MachineDeploymentList
		if err := c.List(ctx, &kcps, ns, inCluster); err != nil {
			return err
		}
		if err := c.List(ctx, &mds, ns, inCluster); err != nil {
			return err
		}
		if len(kcps.Items) != 1 || len(mds.Items) != 1 {
			return fmt.Errorf("%d KubeadmControlPlanes, %d MachineDeployments", len(kcps.Items), len(mds.Items))
		}
		kcp, md = kcps.Items[0], mds.Items[0]
		return nil
	})
	if r := kcp.Spec.Replicas; r == nil || *r != 3 || kcp.Spec.Version != "v1.33.1" {
		t.Errorf("KubeadmControlPlane replicas %v version %q, want 3 v1.33.1", r, kcp.Spec.Version)
	}
	if r := md.Spec.Replicas; r == nil || *r != 2 || md.Spec.Template.Spec.Version != "v1.33.1" {
		t.Errorf("MachineDeployment replicas %v version %q, want 2 v1.33.1", r, md.Spec.Template.Spec.Version)
	}
	for name, want := range map[string]string{
		kcp.Spec.MachineTemplate.Spec.InfrastructureRef.Name: "m1.large",
		md.Spec.Template.Spec.InfrastructureRef.Name:         "m1.medium",
	} {
		var tpl capov1.OpenStackMachineTemplate
		if err := c.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: name}, &tpl); err != nil {
			t.Fatal(err)
		}
		if got := tpl.Spec.Template.Spec.Flavor; got == nil || *got != want {
			t.Errorf("OpenStackMachineTemplate %s flavor %v, want %s", name, got, want)
		}
	}

	// CAPO v0.14: the endpoint in spec, then status.ready.
	var capi clusterv1.Cluster
	if err := c.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: demoClusterName}, &capi); err != nil {
		t.Fatal(err)
	}
	osc := &capov1.OpenStackCluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: capi.Spec.InfrastructureRef.Name}, osc); err != nil {
		t.Fatal(err)
	}
	before := osc.DeepCopy()
	osc.Spec.ControlPlaneEndpoint = &clusterv1beta1.APIEndpoint{Host: "192.0.2.10", Port: 6443}
	if err := c.Patch(ctx, osc, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	before = osc.DeepCopy()
	osc.Status.Ready = true //nolint:staticcheck // CAPO v0.14 sets it; Cluster API reads it (v1beta1 contract)
	if err := c.Status().Patch(ctx, osc, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}

	var kc bootstrapv1.KubeadmConfig
	eventually(t, 60*time.Second, "first control-plane Machine and its KubeadmConfig", func() error {
		var ms clusterv1.MachineList
		if err := c.List(ctx, &ms, ns, inCluster, client.HasLabels{clusterv1.MachineControlPlaneLabel}); err != nil {
			return err
		}
		if len(ms.Items) != 1 {
			return fmt.Errorf("%d control-plane Machines", len(ms.Items))
		}
		ref := ms.Items[0].Spec.Bootstrap.ConfigRef
		return c.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: ref.Name}, &kc)
	})
	var data corev1.Secret
	eventually(t, 60*time.Second, "bootstrap data Secret", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(&kc), &kc); err != nil {
			return err
		}
		if kc.Status.DataSecretName == "" {
			return fmt.Errorf("KubeadmConfig %s has no dataSecretName", kc.Name)
		}
		return c.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: kc.Status.DataSecretName}, &data)
	})
	if len(data.Data["value"]) == 0 || string(data.Data["format"]) != "cloud-config" {
		t.Errorf("bootstrap Secret %s: format %q, %d bytes of value", data.Name, data.Data["format"], len(data.Data["value"]))
	}
}
