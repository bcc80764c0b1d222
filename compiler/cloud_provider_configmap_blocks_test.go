package compiler

import (
	"bytes"
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cindercsi "github.com/openkeel/keel/addons/cinder-csi"
	manilacsi "github.com/openkeel/keel/addons/manila-csi"
	occm "github.com/openkeel/keel/addons/openstack-cloud-controller-manager"
	"github.com/openkeel/keel/internal/memo"
)

// The cloud-provider ConfigMap written from the kept literal blocks, with
// the cluster's UUID set in, is byte for byte the general encoding of the
// payloads rendered for that UUID.
func TestCloudProviderConfigMapFromKeptBlocksIsTheRenderedOne(t *testing.T) {
	combos := []cloudProviderParams{
		{occm: occm.Params{Tag: "v1.33.1"}},
		{occm: occm.Params{Tag: "v1.33.1", Prefix: "registry.example.com/mirror"}, cinderEnabled: true, cinder: cindercsi.Params{Tag: "v1.33.1", VolumeType: "ssd"}},
		{occm: occm.Params{Tag: "v1.32.0"}, cinderEnabled: true, manilaEnabled: true, manila: manilacsi.Params{Tag: "v1.32.0", ShareNetworkID: "5f0c2a1e-share"}},
	}
	c := uuidPayloadCache[cloudProviderParams]{m: memo.Map[cloudProviderParams, uuidPayload]{Max: 8}}
	configMap := func(id string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "kube-x-cloud-provider", Namespace: "magnum-system", Labels: map[string]string{LabelClusterUUID: id}},
			Data:       data,
		}
	}
	for _, p := range combos {
		for range 3 {
			id := uuid.NewString()
			data, known, err := c.getBlocks(p, id, p.render)
			if err != nil {
				t.Fatal(err)
			}
			if len(known) == 0 {
				t.Fatalf("%+v: no literal block kept", p)
			}
			parts, err := marshalPayloadConfigMap(configMap(id, data), known)
			if err != nil {
				t.Fatal(err)
			}
			got := bytes.Join(parts, nil)
			rendered, err := p.render(id)
			if err != nil {
				t.Fatal(err)
			}
			want, err := MarshalObject(configMap(id, rendered))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%+v, uuid %s: differs from the general encoding:\n%s", p, id, firstDiff(got, want))
			}
		}
	}
}
