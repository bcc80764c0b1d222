package clusterclass

import "testing"

func TestAdmissionControlList(t *testing.T) {
	a := args(t, kcp(generate(t, tc{vars: map[string]any{VarAdmissionControlList: "NodeRestriction,PodSecurity"}})), apiServerArgs)
	if a["enable-admission-plugins"] != "NodeRestriction,PodSecurity" {
		t.Errorf("enable-admission-plugins = %q", a["enable-admission-plugins"])
	}
	if a := args(t, kcp(generate(t, tc{})), apiServerArgs); a["enable-admission-plugins"] != "NodeRestriction" {
		t.Errorf("default enable-admission-plugins = %q", a["enable-admission-plugins"])
	}
}
