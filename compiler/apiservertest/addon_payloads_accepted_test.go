package apiservertest

import (
	"testing"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/compiler/plan"
)

// Every object a ClusterResourceSet payload carries (Cilium's chart,
// OCCM's) is accepted by a Kubernetes API server as Cluster API's
// controller would create it in the workload cluster.
func TestAddonPayloadsAccepted(t *testing.T) {
	for name, in := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			docs, err := compiler.Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			var data [][]byte
			for _, d := range docs {
				data = append(data, d.Bytes())
			}
			objs, err := plan.AddonObjects(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) == 0 {
				t.Fatal("no payload objects")
			}
			for _, o := range objs {
				dryRunObject(t, "payload", o)
			}
		})
	}
}
