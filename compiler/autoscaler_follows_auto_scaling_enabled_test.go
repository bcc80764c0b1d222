package compiler

import (
	"maps"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
)

// With auto_scaling_enabled the cluster's rendered folder holds its
// cluster-autoscaler (applied to the management cluster with the Cluster):
// ServiceAccount, Role, RoleBinding and Deployment <stack_id>-autoscaler,
// labelled with the cluster's UUID, at autoscaler_tag or the release for
// kube_tag's minor, under container_infra_prefix, with the scale_down_*
// labels as flags. Without it nothing is rendered (and the reconciler
// prunes what was).
func TestAutoscalerFollowsAutoScalingEnabled(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels map[string]string
		image  string // "" for no autoscaler
		args   []string
	}{
		{"off", map[string]string{"auto_scaling_enabled": "false"}, "", nil},
		{"on", nil, "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.5", []string{"--scale-down-enabled=true", "--scale-down-unneeded-time=10m"}},
		{"tag and prefix", map[string]string{"autoscaler_tag": "v1.32.1", "container_infra_prefix": "registry.example.com/m"},
			"registry.example.com/m/cluster-autoscaler:v1.32.1", nil},
		{"scale down", map[string]string{"scale_down_enabled": "false", "scale_down_unneeded_time": "3m", "scale_down_delay_after_add": "20m", "scale_down_utilization_threshold": "0.25"},
			"registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.5",
			[]string{"--scale-down-enabled=false", "--scale-down-unneeded-time=3m", "--scale-down-delay-after-add=20m", "--scale-down-utilization-threshold=0.25"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := testInputs(t)["cilium-autoscaling"]
			in.Cluster.Labels = maps.Clone(in.Cluster.Labels)
			maps.Copy(in.Cluster.Labels, c.labels)
			docs, err := Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(docs, func(d Document) bool { return d.Path == AutoscalerFile })
			if c.image == "" {
				if i >= 0 {
					t.Fatalf("%s rendered without autoscaling", AutoscalerFile)
				}
				return
			}
			if i < 0 {
				t.Fatalf("no %s", AutoscalerFile)
			}
			objs, err := addons.Decode(string(docs[i].Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			var d appsv1.Deployment
			for _, o := range objs {
				kinds = append(kinds, o.GetKind())
				if o.GetName() != in.Cluster.StackID+"-autoscaler" || o.GetLabels()[LabelClusterUUID] != in.Cluster.UUID {
					t.Errorf("%s %s labelled %v", o.GetKind(), o.GetName(), o.GetLabels())
				}
				if o.GetKind() == "Deployment" {
					b, _ := o.MarshalJSON()
					if err := yaml.UnmarshalStrict(b, &d); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !slices.Equal(kinds, []string{"ServiceAccount", "Role", "RoleBinding", "Deployment"}) {
				t.Fatalf("kinds %v", kinds)
			}
			ct := d.Spec.Template.Spec.Containers[0]
			if ct.Image != c.image {
				t.Errorf("image %s, want %s", ct.Image, c.image)
			}
			for _, a := range c.args {
				if !slices.Contains(ct.Args, a) {
					t.Errorf("args %v lack %s", ct.Args, a)
				}
			}
		})
	}
}
