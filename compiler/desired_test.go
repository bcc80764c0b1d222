package compiler

import (
	"context"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/clusterclass/desired"
)

// renderedCluster compiles an input and decodes its cluster.yaml.
func renderedCluster(t *testing.T, in Input) *clusterv1.Cluster {
	t.Helper()
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Path == "cluster.yaml" {
			cl := &clusterv1.Cluster{}
			if err := yaml.UnmarshalStrict(d.Bytes(), cl); err != nil {
				t.Fatal(err)
			}
			return cl
		}
	}
	t.Fatal("no cluster.yaml")
	return nil
}

func classFor(t *testing.T, name string) *desired.Class {
	t.Helper()
	objs, err := clusterclass.Objects(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := desired.NewClass(objs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every realistic Cluster passes Cluster API's Cluster webhook (defaulting
// and validation of the topology and of every variable against the class's
// schemas) and Cluster API's desired-state generator applies every patch.
func TestRenderedClustersPassClusterAPIValidationAndPatches(t *testing.T) {
	for name, in := range testInputs(t) {
		t.Run(name, func(t *testing.T) {
			cl := renderedCluster(t, in)
			st, err := classFor(t, cl.Spec.Topology.ClassRef.Name).Generate(context.Background(), cl)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(st.MachineDeployments), len(cl.Spec.Topology.Workers.MachineDeployments); got != want {
				t.Errorf("%d MachineDeployments, want %d", got, want)
			}
		})
	}
}
