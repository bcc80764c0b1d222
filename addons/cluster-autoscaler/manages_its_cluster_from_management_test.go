package clusterautoscaler

import (
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// The autoscaler runs in the management cluster with Cluster API's
// provider: the workload cluster through Cluster API's kubeconfig Secret
// (key value), the management cluster through its own ServiceAccount
// (authoritative: never the kubeconfig), discovering only its Cluster's
// node groups in its namespace, which the Role bound to that
// ServiceAccount admits.
func TestManagesItsClusterFromManagement(t *testing.T) {
	objs, err := Manifests(defaults)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind)
		if o.GetName() != "kube-ab12c-autoscaler" || o.GetNamespace() != "magnum-system" {
			t.Errorf("%T named %s/%s, want magnum-system/kube-ab12c-autoscaler", o, o.GetNamespace(), o.GetName())
		}
	}
	if got := strings.Join(kinds, ","); got != "ServiceAccount,Role,RoleBinding,Deployment" {
		t.Errorf("kinds %s", got)
	}
	d := deploymentOf(t, defaults)
	spec := d.Spec.Template.Spec
	c := spec.Containers[0]
	for _, want := range []string{
		"--cloud-provider=clusterapi",
		"--node-group-auto-discovery=clusterapi:namespace=magnum-system,clusterName=kube-ab12c",
		"--kubeconfig=" + KubeconfigPath,
		"--clusterapi-cloud-config-authoritative",
	} {
		if !hasArg(c.Args, want) {
			t.Errorf("args %v lack %s", c.Args, want)
		}
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--cloud-config") {
			t.Errorf("%s: the management cluster must be the in-cluster one", a)
		}
	}
	if len(spec.Volumes) != 1 || spec.Volumes[0].Secret == nil || spec.Volumes[0].Secret.SecretName != "kube-ab12c-kubeconfig" ||
		len(spec.Volumes[0].Secret.Items) != 1 || spec.Volumes[0].Secret.Items[0].Key != "value" {
		t.Fatalf("volumes %+v, want the Secret kube-ab12c-kubeconfig's key value", spec.Volumes)
	}
	if m := c.VolumeMounts; len(m) != 1 || m[0].Name != spec.Volumes[0].Name || m[0].MountPath+"/"+spec.Volumes[0].Secret.Items[0].Path != KubeconfigPath {
		t.Errorf("mounts %+v do not put the kubeconfig at %s", m, KubeconfigPath)
	}
	if spec.ServiceAccountName != "kube-ab12c-autoscaler" || (spec.AutomountServiceAccountToken != nil && !*spec.AutomountServiceAccountToken) {
		t.Errorf("service account %q (automount %v)", spec.ServiceAccountName, spec.AutomountServiceAccountToken)
	}
	rb := objs[2].(*rbacv1.RoleBinding)
	if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != objs[1].GetName() ||
		len(rb.Subjects) != 1 || rb.Subjects[0].Name != spec.ServiceAccountName || rb.Subjects[0].Namespace != "magnum-system" {
		t.Errorf("binding %+v does not bind the Role to the pod's ServiceAccount", rb)
	}
	// Deployment selector: the reference chart's, so its Deployments are
	// updated in place.
	if sel := d.Spec.Selector.MatchLabels; sel["app.kubernetes.io/instance"] != "kube-ab12c" || sel["app.kubernetes.io/name"] != "clusterapi-cluster-autoscaler" {
		t.Errorf("selector %v", sel)
	}
}
