package plan

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler"
)

// A new addon tag is no longer a no-op: the workloads a ClusterResourceSet
// delivers change in place (cloud_provider_tag: the OCCM DaemonSet of the
// cloud-provider set; cilium_tag: Cilium's agent and operator in the
// <uuid> set; k8s_keystone_auth_tag: the k8s-keystone-auth DaemonSet in
// the <uuid> set), and no machine rolls.
func TestAddonLabelChangesInPlace(t *testing.T) {
	for _, c := range []struct {
		driver, label, value string
		objects              []string
		field                string
	}{
		{"calico", "cloud_provider_tag", "v1.34.1",
			[]string{"addon DaemonSet kube-system/openstack-cloud-controller-manager"},
			"spec.template.spec.containers[0].image"},
		{"cilium", "cilium_tag", "v1.15.19",
			[]string{"addon DaemonSet kube-system/cilium", "addon Deployment kube-system/cilium-operator"},
			"spec.template.spec.containers[0].image"},
		{"calico", "k8s_keystone_auth_tag", "v1.35.0",
			[]string{"addon DaemonSet kube-system/k8s-keystone-auth"},
			"spec.template.spec.containers[0].image"},
	} {
		t.Run(c.label, func(t *testing.T) {
			in := input(t)
			in.Template.NetworkDriver = &c.driver
			base := revisionWithAddons(t, in)
			in.Cluster.Labels[c.label] = c.value
			p, err := Compute(context.Background(), base, revisionWithAddons(t, in))
			if err != nil {
				t.Fatal(err)
			}
			check(t, p, map[string]Effect{})
			if p.Effect != InPlace || len(p.Addons) != len(c.objects) {
				t.Fatalf("plan:\n%s", p)
			}
			for i, a := range p.Addons {
				f := strings.Join(a.Fields, "\n")
				if a.Object != c.objects[i] || !strings.Contains(f, c.field) || !strings.Contains(f, ":"+c.value) {
					t.Errorf("change %d: %s, fields:\n%s\nwant %s, %s to :%s", i, a.Object, f, c.objects[i], c.field, c.value)
				}
			}
		})
	}
}

// A change of a CSI label is a change of the objects the cloud-provider
// set delivers, in place, never a no-op: a new plugin tag changes both
// plugins' images, disabling a driver removes its objects from the payload
// (Cluster API leaves them in the workload cluster) and enabling it
// creates them, a new boot_volume_type makes a new default StorageClass
// (and, as it is the root volumes' type, rolls the machines).
func TestCSILabelChangesAddonsInPlace(t *testing.T) {
	for _, c := range []struct {
		base, head map[string]string
		object     string // one of the changed objects
		field      string // in its changed fields
		effect     Effect // of the whole plan
	}{
		{nil, map[string]string{"cinder_csi_plugin_tag": "v1.33.1"},
			"addon Deployment kube-system/openstack-cinder-csi-controllerplugin", "cinder-csi-plugin:v1.33.1", InPlace},
		{nil, map[string]string{"cinder_csi_plugin_tag": "v1.33.1"},
			"addon DaemonSet kube-system/openstack-cinder-csi-nodeplugin", "cinder-csi-plugin:v1.33.1", InPlace},
		{nil, map[string]string{"csi_provisioner_tag": "v5.2.0"},
			"addon StatefulSet kube-system/manila-csi-openstack-manila-csi-controllerplugin", "csi-provisioner:v5.2.0", InPlace},
		{nil, map[string]string{"cinder_csi_enabled": "false"},
			"addon Deployment kube-system/openstack-cinder-csi-controllerplugin", "removed from the payload", InPlace},
		{map[string]string{"cinder_csi_enabled": "false"}, nil,
			"addon CSIDriver cinder.csi.openstack.org", "created", InPlace},
		{map[string]string{"manila_csi_enabled": "false"}, nil,
			"addon DaemonSet kube-system/manila-csi-openstack-manila-csi-nodeplugin", "created", InPlace},
		{nil, map[string]string{"boot_volume_type": "nvme"},
			"addon StorageClass block-nvme", "created", Rollout},
	} {
		rev := func(labels map[string]string) Revision {
			in := input(t)
			maps.Copy(in.Cluster.Labels, labels)
			return revisionWithAddons(t, in)
		}
		p, err := Compute(context.Background(), rev(c.base), rev(c.head))
		if err != nil {
			t.Fatal(err)
		}
		if p.Effect != c.effect {
			t.Errorf("%v → %v: effect %s, want %s\n%s", c.base, c.head, p.Effect, c.effect, p)
		}
		found := false
		for _, a := range p.Addons {
			if a.Object == c.object {
				found = a.Effect == InPlace && strings.Contains(strings.Join(a.Fields, "\n"), c.field)
			}
		}
		if !found {
			t.Errorf("%v → %v: no in place change of %s with %q\n%s", c.base, c.head, c.object, c.field, p)
		}
	}
}

func revisionWithAddons(t *testing.T, in compiler.Input) Revision {
	t.Helper()
	r := revision(t, in)
	docs, err := compiler.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	var data [][]byte
	for _, d := range docs {
		data = append(data, d.Bytes())
	}
	if r.Addons, err = AddonObjects(data); err != nil {
		t.Fatal(err)
	}
	if len(r.Addons) == 0 {
		t.Fatal("no addon objects")
	}
	return r
}

// Switching keystone_auth_enabled changes what the <uuid> set delivers, in
// place: off, k8s-keystone-auth's objects leave the payload (Cluster API
// leaves them in the workload cluster); on, they are created. The
// kube-apiserver's webhook flags change with it, which rolls the control
// plane (the plan's effect), never silently.
func TestKeystoneAuthEnabledChangesAddonsInPlace(t *testing.T) {
	objects := []string{
		"addon ServiceAccount kube-system/k8s-keystone-auth",
		"addon ClusterRole system:k8s-keystone-auth",
		"addon ClusterRoleBinding system:k8s-keystone-auth",
		"addon ConfigMap kube-system/k8s-keystone-auth-policy",
		"addon ConfigMap kube-system/k8s-keystone-auth-sync",
		"addon DaemonSet kube-system/k8s-keystone-auth",
	}
	for _, c := range []struct {
		base, head string
		field      string
	}{
		{"true", "false", "removed from the payload"},
		{"false", "true", "created"},
	} {
		rev := func(enabled string) Revision {
			in := input(t)
			in.Cluster.Labels["keystone_auth_enabled"] = enabled
			return revisionWithAddons(t, in)
		}
		p, err := Compute(context.Background(), rev(c.base), rev(c.head))
		if err != nil {
			t.Fatal(err)
		}
		if p.Effect != Rollout {
			t.Errorf("%s → %s: effect %s, want %s (the apiserver's flags)\n%s", c.base, c.head, p.Effect, Rollout, p)
		}
		changed := map[string]bool{}
		for _, a := range p.Addons {
			if a.Effect == InPlace && strings.Contains(strings.Join(a.Fields, "\n"), c.field) {
				changed[a.Object] = true
			}
		}
		for _, o := range objects {
			if !changed[o] {
				t.Errorf("%s → %s: %s not %s in place\n%s", c.base, c.head, o, c.field, p)
			}
		}
		if len(p.Addons) != len(objects) {
			t.Errorf("%s → %s: %d addon changes, want %d\n%s", c.base, c.head, len(p.Addons), len(objects), p)
		}
	}
}
