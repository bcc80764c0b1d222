package plan

import (
	"context"
	"os"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/clusterclass/desired"
	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
)

func input(t *testing.T) compiler.Input {
	t.Helper()
	data, err := os.ReadFile("../testdata/three-nodegroups.input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := intent.ParseDocuments(data)
	if err != nil {
		t.Fatal(err)
	}
	return compiler.Input{Documents: *d}
}

func revision(t *testing.T, in compiler.Input) Revision {
	t.Helper()
	docs, err := compiler.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	cl := &clusterv1.Cluster{}
	for _, d := range docs {
		if d.Path == "cluster.yaml" {
			if err := yaml.Unmarshal(d.Bytes(), cl); err != nil {
				t.Fatal(err)
			}
		}
	}
	objs, err := clusterclass.Objects(cl.Spec.Topology.ClassRef.Name)
	if err != nil {
		t.Fatal(err)
	}
	class, err := desired.NewClass(objs)
	if err != nil {
		t.Fatal(err)
	}
	return Revision{Class: class, Cluster: cl}
}

func nodeGroup(in *compiler.Input, name string) *intent.NodeGroup {
	for i := range in.NodeGroups {
		if in.NodeGroups[i].Name == name {
			return &in.NodeGroups[i]
		}
	}
	panic(name)
}

func effects(p *Plan) map[string]Effect {
	out := map[string]Effect{"infrastructure": p.InfrastructureCluster.Effect, "control plane": p.ControlPlane.Effect}
	for _, c := range p.MachineDeployments {
		out[c.Object] = c.Effect
	}
	return out
}

func check(t *testing.T, p *Plan, want map[string]Effect) {
	t.Helper()
	got := effects(p)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q\n%s", k, got[k], v, p)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok && v != NoOp {
			t.Errorf("%s: unexpected %q\n%s", k, v, p)
		}
	}
}

func TestUnchangedIsNoOp(t *testing.T) {
	in := input(t)
	p, err := Compute(context.Background(), revision(t, in), revision(t, in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Effect != NoOp {
		t.Fatalf("unchanged cluster: %s", p)
	}
}

// A nodegroup's new flavor rolls that nodegroup only (the reference froze
// nodegroup variables so such changes never applied).
func TestNodeGroupFlavorRollsThatNodeGroup(t *testing.T) {
	base := input(t)
	head := input(t)
	nodeGroup(&head, "edge").FlavorID = intent.Ptr("m1.large")
	p, err := Compute(context.Background(), revision(t, base), revision(t, head))
	if err != nil {
		t.Fatal(err)
	}
	check(t, p, map[string]Effect{"nodegroup edge": Rollout, "infrastructure": NoOp, "control plane": NoOp})
}

// Resizing scales in place: control plane and nodegroups.
func TestResizeIsInPlace(t *testing.T) {
	base := input(t)
	head := input(t)
	nodeGroup(&head, "default-master").NodeCount = 5
	nodeGroup(&head, "gpu").NodeCount = 4
	p, err := Compute(context.Background(), revision(t, base), revision(t, head))
	if err != nil {
		t.Fatal(err)
	}
	check(t, p, map[string]Effect{"control plane": InPlace, "nodegroup gpu": InPlace, "infrastructure": NoOp})
}

// A Kubernetes upgrade rolls every machine.
func TestUpgradeRollsEverything(t *testing.T) {
	base := input(t)
	head := input(t)
	head.Cluster.Labels = map[string]string{}
	for k, v := range base.Cluster.Labels {
		head.Cluster.Labels[k] = v
	}
	head.Cluster.Labels["kube_tag"] = "v1.34.0"
	p, err := Compute(context.Background(), revision(t, base), revision(t, head))
	if err != nil {
		t.Fatal(err)
	}
	check(t, p, map[string]Effect{"control plane": Rollout, "nodegroup default-worker": Rollout, "nodegroup gpu": Rollout,
		"nodegroup edge": Rollout, "infrastructure": NoOp})
}

// Allowed CIDRs of the API load balancer change the OpenStackCluster in
// place.
func TestAllowedCIDRsInPlace(t *testing.T) {
	base := input(t)
	head := input(t)
	head.Cluster.Labels = map[string]string{"kube_tag": "v1.33.1", "api_server_lb_allowed_cidrs": "10.0.0.0/8"}
	for k, v := range base.Cluster.Labels {
		if k != "kube_tag" {
			head.Cluster.Labels[k] = v
		}
	}
	p, err := Compute(context.Background(), revision(t, base), revision(t, head))
	if err != nil {
		t.Fatal(err)
	}
	check(t, p, map[string]Effect{"infrastructure": InPlace, "control plane": NoOp})
}
