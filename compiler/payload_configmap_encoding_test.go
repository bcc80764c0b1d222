package compiler

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons/calico"
)

// The fast encoding of payload ConfigMaps gives exactly the bytes of the
// general one, for the real payloads and for texts it must leave to the
// general path; and what it writes reads back as what it was given.
func TestPayloadConfigMapEncodingMatchesYAML(t *testing.T) {
	texts := map[string]string{
		"plain":          "a: 1\nb:\n  - c\n",
		"blank-lines":    "a: 1\n\n\nb: 2\n",
		"indented-first": "  a: 1\n",
		"no-newline":     "a: 1",
		"two-newlines":   "a: 1\n\n",
		"trailing-space": "a: 1 \nb: 2\n",
		"tab":            "a:\t1\n",
		"crlf":           "a: 1\r\n",
		"control":        "a: \x01\n",
		"unicode":        "a: héllo ✓\n",
		"quotes":         "a: \"x\" 'y' # z\n--- \n",
		"empty":          "",
	}
	for _, tag := range calico.Releases {
		p, err := calico.Payload(calico.Params{Tag: tag, IPv4Pool: "10.100.0.0/16"})
		if err != nil {
			t.Fatal(err)
		}
		texts["calico-"+tag] = p
	}
	for name, text := range texts {
		for _, key := range []string{"payload.yaml", "odd key"} {
			cm := &corev1.ConfigMap{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "magnum-system", Labels: map[string]string{"cluster-uuid": "u"}},
				Data:       map[string]string{key: text, "a-small.yaml": "kind: A\n", "z-small.yaml": "kind: Z\n"},
			}
			want, err := MarshalObject(cm)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := marshalPayloadConfigMap(cm, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := bytes.Join(parts, nil)
			if !bytes.Equal(got, want) {
				t.Errorf("%s, key %q: bytes differ from the general encoding:\n%s", name, key, firstDiff(got, want))
			}
			var back corev1.ConfigMap
			if err := yaml.Unmarshal(got, &back); err != nil || back.Data[key] != text {
				t.Errorf("%s, key %q: reads back differently (%v)", name, key, err)
			}
		}
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + al[i] + "\n want " + bl[i]
		}
	}
	return "lengths differ"
}
