package calico

import (
	"strings"
	"testing"
)

// Every container of every release runs the release's own images, from
// quay.io/calico or, with container_infra_prefix, from <prefix>/calico (the
// reference's mirroring rule).
func TestImagesFollowReleaseAndPrefix(t *testing.T) {
	for _, tag := range Releases {
		for _, tc := range []struct{ prefix, repo string }{
			{"", "quay.io/calico/"},
			{"registry.example.com:5000/mirror", "registry.example.com:5000/mirror/calico/"},
			{"registry.example.com/mirror/", "registry.example.com/mirror/calico/"},
		} {
			objs, err := Manifests(Params{Tag: tag, IPv4Pool: "10.100.0.0/16", Prefix: tc.prefix})
			if err != nil {
				t.Fatal(err)
			}
			var seen []string
			for _, o := range objs {
				for _, field := range []string{"initContainers", "containers"} {
					cs, _, _ := unstructuredSlice(o.Object, "spec", "template", "spec", field)
					for _, c := range cs {
						img := c.(map[string]any)["image"].(string)
						seen = append(seen, img)
						if !strings.HasPrefix(img, tc.repo) || !strings.HasSuffix(img, ":"+tag) {
							t.Errorf("%s prefix %q: %s %s runs %s", tag, tc.prefix, o.GetKind(), o.GetName(), img)
						}
					}
				}
			}
			for _, want := range []string{"node:", "cni:", "kube-controllers:"} {
				if !strings.Contains(strings.Join(seen, " "), "/calico/"+want) {
					t.Errorf("%s: no %s image among %v", tag, want, seen)
				}
			}
		}
	}
}
