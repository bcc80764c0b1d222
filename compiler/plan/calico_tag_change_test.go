package plan

import (
	"context"
	"strings"
	"testing"
)

// A new calico_tag changes the delivered CNI in place (its DaemonSet's
// images), and no machine rolls.
func TestCalicoTagChangesAddonInPlace(t *testing.T) {
	in := input(t)
	in.Cluster.Labels["calico_tag"] = "v3.28.5"
	base := revisionWithAddons(t, in)
	in.Cluster.Labels["calico_tag"] = "v3.30.2"
	p, err := Compute(context.Background(), base, revisionWithAddons(t, in))
	if err != nil {
		t.Fatal(err)
	}
	check(t, p, map[string]Effect{})
	if p.Effect != InPlace {
		t.Fatalf("effect %s, want in place:\n%s", p.Effect, p)
	}
	var fields string
	for _, a := range p.Addons {
		if a.Object == "addon DaemonSet kube-system/calico-node" {
			fields = strings.Join(a.Fields, "\n")
		}
	}
	if !strings.Contains(fields, "quay.io/calico/node:v3.30.2") {
		t.Fatalf("calico-node fields:\n%s\nplan:\n%s", fields, p)
	}
}
