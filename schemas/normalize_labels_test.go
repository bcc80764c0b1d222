package schemas

import (
	"reflect"
	"testing"
)

// Values Magnum accepted in another form are rewritten to keel's, one case
// a row; everything else is left as it is.
func TestNormalizeLabels(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want map[string]string
		changed  int
	}{
		{"container_infra_prefix with the Heat driver's trailing slash",
			map[string]string{"container_infra_prefix": "myregistry.example.com/mycontainers/"},
			map[string]string{"container_infra_prefix": "myregistry.example.com/mycontainers"}, 1},
		{"container_infra_prefix with several trailing slashes",
			map[string]string{"container_infra_prefix": "registry.example.com:5000//", "kube_tag": "v1.32.4"},
			map[string]string{"container_infra_prefix": "registry.example.com:5000", "kube_tag": "v1.32.4"}, 1},
		{"container_infra_prefix already in keel's form",
			map[string]string{"container_infra_prefix": "registry.example.com/k8s"},
			map[string]string{"container_infra_prefix": "registry.example.com/k8s"}, 0},
		{"other labels untouched", map[string]string{"kube_tag": "v1.32.4/"}, map[string]string{"kube_tag": "v1.32.4/"}, 0},
		{"no labels", nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]string{}
			for k, v := range tc.in {
				in[k] = v
			}
			got, changed := NormalizeLabels(tc.in)
			if !reflect.DeepEqual(got, tc.want) || len(changed) != tc.changed {
				t.Errorf("got %v (%v), want %v (%d changes)", got, changed, tc.want, tc.changed)
			}
			if tc.in != nil && !reflect.DeepEqual(tc.in, in) {
				t.Errorf("the input was changed: %v", tc.in)
			}
			if tc.changed > 0 {
				if vs, _ := Default().ValidateLabels(ScopeTemplate, got, ValidateOptions{}); len(vs) > 0 {
					t.Errorf("normalised labels are refused: %v", vs)
				}
			}
		})
	}
}
