package compiler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
)

// The cloud-config Secret names the server groups the facts record,
// sorted and once each (for the teardown, which deletes them); none
// recorded, no annotation.
func TestCloudConfigNamesServerGroups(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups map[string]string
		want   string
	}{
		{"none", nil, ""},
		{"per nodegroup", map[string]string{"default-master": "sg-c", "default-worker": "sg-a", "gpu": "sg-b"}, "sg-a,sg-b,sg-c"},
		{"shared and empty", map[string]string{"default-master": "sg-a", "default-worker": "sg-a", "old": ""}, "sg-a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := secretsInput(t)
			in.Facts.ServerGroupIDs = tc.groups
			docs, err := Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			var s *corev1.Secret
			for _, d := range docs {
				if d.Path == "secret-cloud-config.yaml" {
					s = &corev1.Secret{}
					if err := yaml.Unmarshal(d.Bytes(), s); err != nil {
						t.Fatal(err)
					}
				}
			}
			if s == nil {
				t.Fatal("no cloud-config Secret")
			}
			got, ok := s.Annotations[intent.AnnotationServerGroupIDs]
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("annotation %q (present %v), want %q", got, ok, tc.want)
			}
		})
	}
}
