package compiler

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
	keystoneauth "github.com/openkeel/keel/addons/k8s-keystone-auth"
)

// keystone_auth_enabled (default true) decides whether the <uuid> set
// delivers k8s-keystone-auth: its manifests under k8s-keystone-auth.yaml
// of the ConfigMap <uuid>, beside the CNI, at k8s_keystone_auth_tag under
// container_infra_prefix, and the Secret <uuid> (listed first, so that the
// DaemonSet finds it) with the cloud's Keystone URL and CA. Disabled, the
// set is the CNI's ConfigMap alone and no Secret is rendered.
func TestKeystoneAuthEnabled(t *testing.T) {
	const ca = "-----BEGIN CERTIFICATE-----\nMIIBkeelca\n-----END CERTIFICATE-----\n"
	for _, c := range []struct {
		name   string
		labels map[string]string
		on     bool
		image  string
	}{
		{"default", nil, true, "registry.k8s.io/provider-os/k8s-keystone-auth:v1.29.0"},
		{"enabled", map[string]string{"keystone_auth_enabled": "true", "k8s_keystone_auth_tag": "v1.35.0"}, true,
			"registry.k8s.io/provider-os/k8s-keystone-auth:v1.35.0"},
		{"prefix", map[string]string{"container_infra_prefix": "registry.example.com/m"}, true,
			"registry.example.com/m/k8s-keystone-auth:v1.29.0"},
		{"disabled", map[string]string{"keystone_auth_enabled": "false"}, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := secretsInput(t)
			in.Secrets.Cloud.CACert = ca
			for k, v := range c.labels {
				in.Cluster.Labels[k] = v
			}
			docs, err := Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			byPath := map[string][]byte{}
			for _, d := range docs {
				byPath[d.Path] = d.Bytes()
			}
			uuid := in.Cluster.UUID
			var crs addonsv1.ClusterResourceSet
			if err := yaml.Unmarshal(byPath["clusterresourceset-addons.yaml"], &crs); err != nil {
				t.Fatal(err)
			}
			want := []addonsv1.ResourceRef{{Name: uuid, Kind: "ConfigMap"}}
			if c.on {
				want = append([]addonsv1.ResourceRef{{Name: uuid, Kind: "Secret"}}, want...)
			}
			if !slices.Equal(crs.Spec.Resources, want) {
				t.Errorf("<uuid> set resources %v, want %v", crs.Spec.Resources, want)
			}

			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(byPath["configmap-addons.yaml"], &cm); err != nil {
				t.Fatal(err)
			}
			payload, ok := cm.Data["k8s-keystone-auth.yaml"]
			if ok != c.on || cm.Data["calico.yaml"] == "" {
				t.Fatalf("ConfigMap keys: k8s-keystone-auth.yaml %v (want %v), calico.yaml %v", ok, c.on, cm.Data["calico.yaml"] != "")
			}
			secretDoc, ok := byPath["secret-addons.yaml"]
			if ok != c.on {
				t.Fatalf("Secret <uuid> rendered %v, want %v", ok, c.on)
			}
			if !c.on {
				return
			}
			objs, err := addons.Decode(payload)
			if err != nil {
				t.Fatal(err)
			}
			var ds *appsv1.DaemonSet
			for _, o := range objs {
				if o.GetKind() == "DaemonSet" {
					if ds != nil {
						t.Fatal("two DaemonSets")
					}
					ds = &appsv1.DaemonSet{}
					b, _ := yaml.Marshal(o.Object)
					if err := yaml.UnmarshalStrict(b, ds); err != nil {
						t.Fatal(err)
					}
				}
			}
			if ds == nil || ds.Name != keystoneauth.Name || ds.Spec.Template.Spec.Containers[0].Image != c.image {
				t.Errorf("DaemonSet %v, want %s with image %s", ds, keystoneauth.Name, c.image)
			}
			if !strings.Contains(payload, `"`+in.Cluster.ProjectID+`"`) {
				t.Errorf("the policy does not name the cluster's project %s", in.Cluster.ProjectID)
			}

			var secret, inner corev1.Secret
			if err := yaml.Unmarshal(secretDoc, &secret); err != nil {
				t.Fatal(err)
			}
			if secret.Name != uuid || secret.Namespace != "magnum-system" || secret.Type != addonsv1.ClusterResourceSetSecretType || len(secret.Data) != 1 {
				t.Fatalf("Secret %s/%s (%s) with %d keys", secret.Namespace, secret.Name, secret.Type, len(secret.Data))
			}
			if err := yaml.Unmarshal(secret.Data["k8s-keystone-auth-secret.yaml"], &inner); err != nil {
				t.Fatal(err)
			}
			if inner.Name != keystoneauth.SecretName || inner.Namespace != "kube-system" ||
				string(inner.Data[keystoneauth.SecretKeystoneURL]) != "https://keystone.example.org/v3" || string(inner.Data[keystoneauth.SecretCA]) != ca {
				t.Errorf("kube-system Secret %s/%s: %v", inner.Namespace, inner.Name, inner.Data)
			}
		})
	}
}
