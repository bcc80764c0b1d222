package server

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterautoscaler "github.com/openkeel/keel/addons/cluster-autoscaler"
	"github.com/openkeel/keel/internal/kube"
)

// With Cluster API's own controllers, an autoscaled cluster (template
// label auto_scaling_enabled) gets its cluster-autoscaler in the
// management cluster: the Deployment <stack_id>-autoscaler runs the
// clusterapi provider on the workload's kubeconfig Secret, under
// container_infra_prefix, and its ServiceAccount may do in the cluster's
// namespace what the autoscaler does (SubjectAccessReview), nothing
// cluster-wide. The MachineDeployment carries the min/max annotations
// without topology replicas; scaled through the scale subresource as that
// ServiceAccount (as the autoscaler scales), it keeps the autoscaler's
// count: the topology controller leaves it alone, and the Magnum API
// reports it. Deleting the cluster deletes the autoscaler.
//
// The autoscaler image itself does not run here (no registry); its
// command line is checked against the upstream flags in
// addons/cluster-autoscaler.
func TestRealClusterAPIAutoscaler(t *testing.T) {
	const mirror = "registry.example.com/mirror"
	ctx := context.Background()
	in, sc := startRealKeel(t)
	tmpl := realTemplate(t, sc, "", "calico", map[string]string{
		"auto_scaling_enabled": "true", "min_node_count": "1", "max_node_count": "3",
		"container_infra_prefix": mirror, "scale_down_unneeded_time": "5m",
	})
	one := 1
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "scaled", ClusterTemplateID: tmpl.UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	var c *clusters.Cluster
	waitFor(t, time.Minute, "the stack id", func() bool {
		c, err = clusters.Get(ctx, sc, id).Extract()
		return err == nil && c.StackID != ""
	})
	name := clusterautoscaler.FullName(c.StackID)
	key := client.ObjectKey{Namespace: kube.Namespace, Name: name}

	// The Deployment, as applied.
	var d appsv1.Deployment
	waitFor(t, 2*time.Minute, "the autoscaler Deployment", func() bool { return in.Client.Get(ctx, key, &d) == nil })
	ct := d.Spec.Template.Spec.Containers[0]
	if want := mirror + "/cluster-autoscaler:v1.33.5"; ct.Image != want {
		t.Errorf("image %s, want %s", ct.Image, want)
	}
	for _, a := range []string{
		"--cloud-provider=clusterapi", "--kubeconfig=" + clusterautoscaler.KubeconfigPath, "--clusterapi-cloud-config-authoritative",
		"--node-group-auto-discovery=clusterapi:namespace=" + kube.Namespace + ",clusterName=" + c.StackID,
		"--scale-down-unneeded-time=5m",
	} {
		if !slices.Contains(ct.Args, a) {
			t.Errorf("args %v lack %s", ct.Args, a)
		}
	}
	if v := d.Spec.Template.Spec.Volumes; len(v) != 1 || v[0].Secret == nil || v[0].Secret.SecretName != c.StackID+"-kubeconfig" {
		t.Errorf("volumes %+v, want the Secret %s-kubeconfig", v, c.StackID)
	}
	if d.Spec.Template.Spec.ServiceAccountName != name {
		t.Errorf("service account %s, want %s", d.Spec.Template.Spec.ServiceAccountName, name)
	}

	// Its ServiceAccount's rights, as the API server decides them.
	user := "system:serviceaccount:" + kube.Namespace + ":" + name
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + kube.Namespace, "system:authenticated"}
	can := func(verb, group, resource, sub, ns string) bool {
		t.Helper()
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group, Resource: resource, Subresource: sub},
		}}
		if err := in.Client.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		return sar.Status.Allowed
	}
	for _, r := range []struct{ verb, group, resource, sub string }{
		{"list", "cluster.x-k8s.io", "machinedeployments", ""},
		{"watch", "cluster.x-k8s.io", "machinedeployments", ""},
		{"list", "cluster.x-k8s.io", "machinesets", ""},
		{"watch", "cluster.x-k8s.io", "machines", ""},
		{"list", "cluster.x-k8s.io", "machinepools", ""},
		{"update", "cluster.x-k8s.io", "machines", ""}, // the delete-machine annotation
		{"get", "cluster.x-k8s.io", "machinedeployments", "scale"},
		{"update", "cluster.x-k8s.io", "machinedeployments", "scale"},
		{"list", "infrastructure.cluster.x-k8s.io", "openstackmachinetemplates", ""},
	} {
		if !can(r.verb, r.group, r.resource, r.sub, kube.Namespace) {
			t.Errorf("the autoscaler may not %s %s/%s %s in %s", r.verb, r.group, r.resource, r.sub, kube.Namespace)
		}
	}
	for _, r := range []struct{ verb, group, resource, ns string }{
		{"list", "cluster.x-k8s.io", "machinedeployments", ""}, // cluster-wide
		{"delete", "cluster.x-k8s.io", "machines", kube.Namespace},
		{"get", "", "secrets", kube.Namespace}, // the kubeconfig comes as a volume
		{"update", "cluster.x-k8s.io", "clusters", kube.Namespace},
	} {
		if can(r.verb, r.group, r.resource, "", r.ns) {
			t.Errorf("the autoscaler may %s %s/%s in %q", r.verb, r.group, r.resource, r.ns)
		}
	}

	// The MachineDeployment: bounds, replicas from the minimum, none in
	// the topology.
	var md clusterv1.MachineDeployment
	waitFor(t, 3*time.Minute, "the default-worker MachineDeployment", func() bool {
		var mds clusterv1.MachineDeploymentList
		if in.Client.List(ctx, &mds, client.InNamespace(kube.Namespace), client.MatchingLabels{
			clusterv1.ClusterNameLabel: c.StackID, clusterv1.ClusterTopologyMachineDeploymentNameLabel: "default-worker",
		}) != nil || len(mds.Items) != 1 {
			return false
		}
		md = mds.Items[0]
		return true
	})
	if a := md.Annotations; a[clusterv1.AutoscalerMinSizeAnnotation] != "1" || a[clusterv1.AutoscalerMaxSizeAnnotation] != "3" {
		t.Errorf("MachineDeployment annotations %v, want min 1 max 3", a)
	}
	if md.Spec.Replicas == nil || *md.Spec.Replicas != 1 {
		t.Errorf("MachineDeployment replicas %v, want 1 (the minimum)", md.Spec.Replicas)
	}
	var cl clusterv1.Cluster
	if err := in.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID}, &cl); err != nil {
		t.Fatal(err)
	}
	for _, m := range cl.Spec.Topology.Workers.MachineDeployments {
		if m.Replicas != nil {
			t.Errorf("topology %s has replicas %d with autoscaling", m.Name, *m.Replicas)
		}
	}

	// Scale as the autoscaler does: the scale subresource, as its
	// ServiceAccount.
	asAutoscaler := rest.CopyConfig(in.Config)
	asAutoscaler.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	ac, err := client.New(asAutoscaler, client.Options{Scheme: in.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 2}}
	if err := ac.SubResource("scale").Update(ctx, &md, client.WithSubResourceBody(scale)); err != nil {
		t.Fatalf("scaling as the autoscaler: %v", err)
	}
	// A change of the Cluster makes Cluster API reconcile its topology
	// again: the count stays the autoscaler's, and the API reports it.
	poke := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":{"test.keel.openkeel.io/poke":"`+
		strconv.FormatInt(time.Now().UnixNano(), 10)+`"}}}`))
	if err := in.Client.Patch(ctx, &cl, poke); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, "the Magnum API to report the autoscaler's 2 workers", func() bool {
		ng, err := nodegroups.Get(ctx, sc, id, "default-worker").Extract()
		return err == nil && ng.NodeCount == 2
	})
	if err := in.Client.Get(ctx, client.ObjectKeyFromObject(&md), &md); err != nil {
		t.Fatal(err)
	}
	if md.Spec.Replicas == nil || *md.Spec.Replicas != 2 {
		t.Fatalf("replicas %v after the topology reconciled, want the autoscaler's 2", md.Spec.Replicas)
	}
	// And it never will change it: the topology controller's server-side
	// apply does not own spec.replicas (it would set it back otherwise).
	for _, mf := range md.ManagedFields {
		if mf.Manager == "capi-topology" && mf.FieldsV1 != nil && strings.Contains(mf.FieldsV1.GetRawString(), `"f:replicas"`) {
			t.Errorf("the topology controller owns the MachineDeployment's replicas: %s", mf.FieldsV1.GetRawString())
		}
	}

	// Delete: the autoscaler goes with the Cluster.
	if err := clusters.Delete(ctx, sc, id).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, "the autoscaler Deployment to be deleted", func() bool {
		return apierrors.IsNotFound(in.Client.Get(ctx, key, &appsv1.Deployment{}))
	})
}
