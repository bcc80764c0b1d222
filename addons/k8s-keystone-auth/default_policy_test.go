package keystoneauth

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// The policy ConfigMap the DaemonSet names carries the reference's default
// policy for the cluster's project under the key k8s-keystone-auth reads
// (policies, a JSON list), the sync ConfigMap the reference's role
// mapping, and the DaemonSet's ServiceAccount may read them.
func TestDefaultPolicyReachesTheWebhook(t *testing.T) {
	objs := render(t, defaults)
	ds := daemonSetOf(t, defaults)
	args := ds.Spec.Template.Spec.Containers[0].Args

	policy := typed[corev1.ConfigMap](t, find(t, objs, "ConfigMap", flag(args, "--policy-configmap-name")))
	if policy.Namespace != Namespace {
		t.Errorf("policy in %q: k8s-keystone-auth reads kube-system", policy.Namespace)
	}
	var got []Policy
	if err := json.Unmarshal([]byte(policy.Data["policies"]), &got); err != nil {
		t.Fatalf("policies: %v", err)
	}
	want := []Policy{{
		Resource: PolicyResource{Verbs: []string{"list"}, Resources: []string{"pods", "services", "deployments", "pvc"}, Version: "*", Namespace: "default"},
		Match:    []PolicyMatch{{Type: "role", Values: []string{"member"}}, {Type: "project", Values: []string{defaults.ProjectID}}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("policy %+v, want the reference's %+v", got, want)
	}

	sync := typed[corev1.ConfigMap](t, find(t, objs, "ConfigMap", flag(args, "--sync-configmap-name")))
	if sync.Data["syncConfig"] != "role-mappings:\n  - keystone-role: member\n    groups: []\n" {
		t.Errorf("syncConfig %q", sync.Data["syncConfig"])
	}

	crb := typed[rbacv1.ClusterRoleBinding](t, find(t, objs, "ClusterRoleBinding", "system:k8s-keystone-auth"))
	sa := ds.Spec.Template.Spec.ServiceAccountName
	if len(crb.Subjects) != 1 || crb.Subjects[0].Name != sa || crb.Subjects[0].Namespace != Namespace {
		t.Errorf("binding subjects %v, want the DaemonSet's ServiceAccount %s", crb.Subjects, sa)
	}
	find(t, objs, "ServiceAccount", sa)
	role := typed[rbacv1.ClusterRole](t, find(t, objs, "ClusterRole", crb.RoleRef.Name))
	want2 := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}}
	if !reflect.DeepEqual(role.Rules, want2) {
		t.Errorf("rules %v, want %v", role.Rules, want2)
	}

	p := defaults
	p.ProjectID = ""
	if _, err := Manifests(p); err == nil {
		t.Error("rendered a policy without a project")
	}
}
