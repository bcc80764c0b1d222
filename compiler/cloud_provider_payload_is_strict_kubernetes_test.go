package compiler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// Every object the cloud-provider set delivers (OCCM, both CSI drivers
// with their StorageClasses, and the Secrets) is a Kubernetes type the
// workload API server knows, without unknown or misplaced fields: Cluster
// API applies the payload as it is, and one object refused leaves the set
// not applied.
func TestCloudProviderPayloadIsStrictKubernetes(t *testing.T) {
	in := secretsInput(t)
	in.Cluster.Labels["manila_csi_share_network_id"] = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	payload := map[string]string{}
	for _, d := range docs {
		switch d.Path {
		case "configmap-cloud-provider.yaml":
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(d.Bytes(), &cm); err != nil {
				t.Fatal(err)
			}
			for k, v := range cm.Data {
				payload["ConfigMap "+k] = v
			}
		case "secret-cloud-provider.yaml":
			var s corev1.Secret
			if err := yaml.Unmarshal(d.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
			for k, v := range s.Data {
				payload["Secret "+k] = string(v)
			}
		}
	}
	if len(payload) != 5 {
		t.Fatalf("payload keys %d, want 3 in the ConfigMap and 2 in the Secret", len(payload))
	}
	decoder := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	kinds := map[string]bool{}
	for key, stream := range payload {
		for _, doc := range strings.Split(stream, "\n---\n") {
			_, gvk, err := decoder.Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			kinds[gvk.Kind] = true
		}
	}
	for _, k := range []string{"DaemonSet", "Deployment", "StatefulSet", "CSIDriver", "StorageClass", "Secret", "ClusterRole"} {
		if !kinds[k] {
			t.Errorf("no %s in the payload (kinds %v)", k, kinds)
		}
	}
}
