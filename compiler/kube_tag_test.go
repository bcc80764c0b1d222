package compiler

import (
	"strings"
	"testing"
)

// kube_tag has no default (the reference's documented v1.25.3 is
// unreachable): a cluster without it does not compile.
func TestKubeTagRequired(t *testing.T) {
	in := testInputs(t)["calico-basic"]
	in.Cluster.Labels = map[string]string{}
	if _, err := Compile(in); err == nil || !strings.Contains(err.Error(), "kube_tag") {
		t.Fatalf("err = %v", err)
	}
}
