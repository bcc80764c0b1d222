package clusterautoscaler

import "testing"

// The image is registry.k8s.io/autoscaling/cluster-autoscaler at the tag,
// or <container_infra_prefix>/cluster-autoscaler (the reference's
// mirroring rule for registry.k8s.io/autoscaling).
func TestImageFollowsTagAndPrefix(t *testing.T) {
	for _, c := range []struct{ tag, prefix, want string }{
		{"v1.33.5", "", "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.5"},
		{"v1.30.7", "registry.example.com/mirror", "registry.example.com/mirror/cluster-autoscaler:v1.30.7"},
		{"v1.30.7", "registry.example.com:5000/mirror/", "registry.example.com:5000/mirror/cluster-autoscaler:v1.30.7"},
	} {
		p := defaults
		p.Tag, p.Prefix = c.tag, c.prefix
		cs := deploymentOf(t, p).Spec.Template.Spec.Containers
		if len(cs) != 1 || cs[0].Image != c.want {
			t.Errorf("tag %q prefix %q: containers %v, want one running %s", c.tag, c.prefix, cs, c.want)
		}
	}
}
