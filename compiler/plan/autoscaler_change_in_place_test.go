package plan

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler"
)

// A change of an autoscaler label is not a no-op: the cluster-autoscaler
// keel applies to the management cluster changes in place (autoscaler_tag
// and scale_down_*: its Deployment's container), is created with
// auto_scaling_enabled (the MachineDeployments get their bounds, in
// place) and pruned without it. No machine rolls.
func TestAutoscalerChangesInPlace(t *testing.T) {
	const deploy = "management Deployment magnum-system/%s-autoscaler"
	on := map[string]string{"auto_scaling_enabled": "true"}
	for _, c := range []struct {
		name       string
		base, head map[string]string
		objects    []string // changed management objects, sorted, %s = stack id
		field      string   // in the Deployment's change
	}{
		{"tag", on, map[string]string{"auto_scaling_enabled": "true", "autoscaler_tag": "v1.32.1"},
			[]string{deploy}, "cluster-autoscaler:v1.32.1"},
		{"scale down", on, map[string]string{"auto_scaling_enabled": "true", "scale_down_unneeded_time": "30m"},
			[]string{deploy}, "--scale-down-unneeded-time=30m"},
		{"enabled", nil, on, []string{
			deploy, "management Role magnum-system/%s-autoscaler", "management RoleBinding magnum-system/%s-autoscaler",
			"management ServiceAccount magnum-system/%s-autoscaler"}, "created"},
		{"disabled", on, nil, []string{
			deploy, "management Role magnum-system/%s-autoscaler", "management RoleBinding magnum-system/%s-autoscaler",
			"management ServiceAccount magnum-system/%s-autoscaler"}, "deleted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rev := func(labels map[string]string) Revision {
				in := input(t)
				maps.Copy(in.Cluster.Labels, labels)
				return revisionWithManagement(t, in)
			}
			p, err := Compute(context.Background(), rev(c.base), rev(c.head))
			if err != nil {
				t.Fatal(err)
			}
			if p.Effect != InPlace {
				t.Fatalf("effect %s, want in place\n%s", p.Effect, p)
			}
			var got []string
			for _, m := range p.Management {
				got = append(got, m.Object)
				if m.Effect != InPlace {
					t.Errorf("%s: %s", m.Object, m.Effect)
				}
				if strings.Contains(m.Object, "Deployment") && !strings.Contains(strings.Join(m.Fields, "\n"), c.field) {
					t.Errorf("%s fields:\n%s\nwant %q", m.Object, strings.Join(m.Fields, "\n"), c.field)
				}
			}
			var want []string
			for _, o := range c.objects {
				want = append(want, strings.ReplaceAll(o, "%s", p.Cluster))
			}
			if !slices.Equal(got, want) {
				t.Errorf("management changes %v, want %v\n%s", got, want, p)
			}
		})
	}
}

func revisionWithManagement(t *testing.T, in compiler.Input) Revision {
	t.Helper()
	r := revision(t, in)
	docs, err := compiler.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Path == compiler.AutoscalerFile {
			if r.Management, err = ManagementObjects(d.Bytes()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}
