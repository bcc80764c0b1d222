package compiler

import (
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
)

// A rotated cluster's Cluster carries its rotation marker as the
// caRotation variable (which rolls every machine per phase); a cluster
// never rotated has no such variable.
func TestCARotationMarkerReachesCluster(t *testing.T) {
	for _, c := range []struct {
		rotation *intent.CARotation
		want     string // "" for none
	}{
		{nil, ""},
		{&intent.CARotation{Generation: 3, Phase: intent.CAPhaseFinish}, "name: caRotation\n      value: 3-finish\n"},
	} {
		in := secretsInput(t)
		in.Cluster.CARotation = c.rotation
		docs, err := Compile(in)
		if err != nil {
			t.Fatal(err)
		}
		cluster := string(docs[0].Bytes())
		if docs[0].Path != "cluster.yaml" || strings.Contains(cluster, "caRotation") != (c.want != "") || !strings.Contains(cluster, c.want) {
			t.Errorf("%+v: %s", c.rotation, cluster)
		}
	}
}
