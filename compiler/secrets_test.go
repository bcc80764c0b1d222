package compiler

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/pki"
)

var (
	secretsPKIOnce sync.Once
	secretsPKI     *pki.ClusterPKI
)

func secretsInput(t *testing.T) Input {
	t.Helper()
	secretsPKIOnce.Do(func() {
		var err error
		if secretsPKI, err = pki.Generate("prod-a", time.Now()); err != nil {
			panic(err)
		}
	})
	ng := func(name, role string) intent.NodeGroup {
		return intent.NodeGroup{Name: name, Role: role, IsDefault: true, NodeCount: 1}
	}
	return Input{Documents: intent.Documents{
		Template: intent.ClusterTemplate{ImageID: "img", Labels: map[string]string{"kube_tag": "v1.33.4"}},
		Cluster: intent.Cluster{UUID: "5e0b6b4e-0f1f-4b7f-9d7c-0a6a2b6f1c01", Name: "prod-a", StackID: "kube-abcde", ProjectID: "p1",
			ClusterClass: "magnum-v0.1.0", Labels: map[string]string{"kube_tag": "v1.33.4"}},
		NodeGroups: []intent.NodeGroup{ng(intent.DefaultMasterNodeGroup, intent.RoleMaster), ng(intent.DefaultWorkerNodeGroup, intent.RoleWorker)}},
		Secrets: &SecretInput{PKI: secretsPKI, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.org/v3", RegionName: "RegionOne"}},
	}
}

// The compiler renders the four kubeadm CA Secrets and the cloud-config
// Secret in the shapes Cluster API and CAPO read, lists them in the
// kustomization, and renders the same bytes every time (encryption is
// repo's job, not the compiler's).
func TestCompileRendersClusterSecrets(t *testing.T) {
	in := secretsInput(t)
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, d := range docs {
		byPath[d.Path] = d.Bytes()
	}
	want := map[string]pki.KeyPair{
		"secret-ca.yaml": in.Secrets.PKI.CA, "secret-etcd.yaml": in.Secrets.PKI.EtcdCA,
		"secret-proxy.yaml": in.Secrets.PKI.FrontProxyCA, "secret-sa.yaml": in.Secrets.PKI.ServiceAccount,
	}
	for p, kp := range want {
		var s corev1.Secret
		if err := yaml.Unmarshal(byPath[p], &s); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		purpose := strings.TrimSuffix(strings.TrimPrefix(p, "secret-"), ".yaml")
		if s.Name != "kube-abcde-"+purpose || s.Namespace != "magnum-system" || string(s.Type) != ClusterSecretType ||
			s.Labels[LabelCAPIClusterName] != "kube-abcde" {
			t.Errorf("%s: %s/%s type %s labels %v", p, s.Namespace, s.Name, s.Type, s.Labels)
		}
		if !bytes.Equal(s.Data["tls.crt"], kp.Cert) || !bytes.Equal(s.Data["tls.key"], kp.Key) {
			t.Errorf("%s: tls.crt/tls.key are not the cluster's key pair", p)
		}
	}
	var cc corev1.Secret
	if err := yaml.Unmarshal(byPath["secret-cloud-config.yaml"], &cc); err != nil {
		t.Fatal(err)
	}
	if cc.Name != "kube-abcde-cloud-config" || cc.Labels[LabelClusterUUID] != in.Cluster.UUID {
		t.Errorf("cloud-config: %s labels %v", cc.Name, cc.Labels)
	}
	var clouds struct {
		Clouds map[string]map[string]any `json:"clouds"`
	}
	if err := yaml.Unmarshal(cc.Data["clouds.yaml"], &clouds); err != nil {
		t.Fatal(err)
	}
	def := clouds.Clouds["default"]
	auth, _ := def["auth"].(map[string]any)
	if auth["auth_url"] != "https://keystone.example.org/v3" || auth["application_credential_id"] != PlaceholderCredentialID ||
		def["region_name"] != "RegionOne" || def["interface"] != "public" || def["verify"] != true {
		t.Errorf("clouds.yaml: %s", cc.Data["clouds.yaml"])
	}
	kust := string(byPath[KustomizationFile])
	for p := range want {
		if !strings.Contains(kust, "- "+p+"\n") {
			t.Errorf("kustomization does not list %s:\n%s", p, kust)
		}
	}
	again, _ := Compile(secretsInput(t))
	for i := range docs {
		if !bytes.Equal(docs[i].Bytes(), again[i].Bytes()) {
			t.Errorf("%s differs between two compiles", docs[i].Path)
		}
	}
	in.Secrets = nil
	plain, _ := Compile(in)
	for _, d := range plain {
		if strings.HasPrefix(d.Path, SecretFilePrefix) {
			t.Errorf("Secrets rendered without secret input: %s", d.Path)
		}
	}
}
