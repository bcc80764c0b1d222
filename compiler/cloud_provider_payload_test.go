package compiler

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
)

// Every resource the cloud-provider ClusterResourceSet names is rendered
// beside it: the Secret (type resource-set, the kube-system/cloud-config
// Secret whose cloud.conf carries the cluster's credential and region) and
// the ConfigMap (the OCCM manifests, with the cluster's UUID as its
// --cluster-name), so Cluster API never skips a missing payload.
func TestCloudProviderPayloadIsRendered(t *testing.T) {
	in := secretsInput(t)
	in.Secrets.Credential = &intent.ClusterCredential{ID: "ac-1", Secret: "s3cr3t", UserID: "alice-id"}
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, d := range docs {
		byPath[d.Path] = d.Bytes()
	}
	var crs addonsv1.ClusterResourceSet
	if err := yaml.Unmarshal(byPath["clusterresourceset-cloud-provider.yaml"], &crs); err != nil {
		t.Fatal(err)
	}
	var secret corev1.Secret
	if err := yaml.Unmarshal(byPath["secret-cloud-provider.yaml"], &secret); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(byPath["configmap-cloud-provider.yaml"], &cm); err != nil {
		t.Fatal(err)
	}
	want := []addonsv1.ResourceRef{{Name: "kube-abcde-cloud-provider", Kind: "Secret"}, {Name: "kube-abcde-cloud-provider", Kind: "ConfigMap"}}
	if len(crs.Spec.Resources) != 2 || crs.Spec.Resources[0] != want[0] || crs.Spec.Resources[1] != want[1] {
		t.Fatalf("resources %v, want %v", crs.Spec.Resources, want)
	}
	if secret.Name != want[0].Name || secret.Type != addonsv1.ClusterResourceSetSecretType || cm.Name != want[1].Name {
		t.Fatalf("payload Secret %s (%s), ConfigMap %s", secret.Name, secret.Type, cm.Name)
	}

	var cloudConfig corev1.Secret
	if err := yaml.Unmarshal(secret.Data["cloud-config-secret.yaml"], &cloudConfig); err != nil {
		t.Fatal(err)
	}
	conf := string(cloudConfig.Data["cloud.conf"])
	if cloudConfig.Namespace != "kube-system" || cloudConfig.Name != "cloud-config" {
		t.Errorf("cloud config Secret %s/%s", cloudConfig.Namespace, cloudConfig.Name)
	}
	for _, line := range []string{`application-credential-id = "ac-1"`, `application-credential-secret = "s3cr3t"`, `region = "RegionOne"`, `auth-url = "https://keystone.example.org/v3"`} {
		if !strings.Contains(conf, line) {
			t.Errorf("cloud.conf lacks %s:\n%s", line, conf)
		}
	}

	var ds *appsv1.DaemonSet
	for _, doc := range strings.Split(cm.Data["openstack-cloud-controller-manager.yaml"], "\n---\n") {
		var d appsv1.DaemonSet
		if err := yaml.Unmarshal([]byte(doc), &d); err == nil && d.Kind == "DaemonSet" {
			ds = &d
		}
	}
	if ds == nil {
		t.Fatal("no DaemonSet in the ConfigMap")
	}
	c := ds.Spec.Template.Spec.Containers[0]
	if len(c.Env) < 2 || c.Env[1].Name != "CLUSTER_NAME" || c.Env[1].Value != in.Cluster.UUID {
		t.Errorf("env %v, want CLUSTER_NAME=%s", c.Env, in.Cluster.UUID)
	}
	if strings.Contains(string(byPath["configmap-cloud-provider.yaml"]), "s3cr3t") {
		t.Error("the credential is in the plain-text ConfigMap")
	}
}
