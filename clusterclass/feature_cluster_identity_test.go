package clusterclass

import "testing"

func TestClusterIdentityRefName(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarClusterIdentityRefName: "kube-zzzzz-cloud-config"}})
	_, workers := md(t, st, "default-worker")
	equal(t, osc(st), "spec.identityRef.name", "kube-zzzzz-cloud-config")
	equal(t, osc(st), "spec.identityRef.cloudName", "default")
	equal(t, cpMachines(st), "spec.template.spec.identityRef.name", "kube-zzzzz-cloud-config")
	equal(t, workers, "spec.template.spec.identityRef.name", "kube-zzzzz-cloud-config")
}
