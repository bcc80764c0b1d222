package clusterclass

import "testing"

// apiserver_port reaches each consumer of the port: CAPO's listener and
// advertised endpoint, the control-plane security group, and
// kube-apiserver's bind port on the first and the joining control planes.
// (7443: the API refuses 8443, the keystone webhook's port.)
func TestAPIServerPort(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarAPIServerPort: 7443}})
	equal(t, osc(st), "spec.apiServerPort", 7443)
	equal(t, osc(st), "spec.managedSecurityGroups.controlPlaneNodesSecurityGroupRules", []any{map[string]any{
		"name": "Kubernetes API", "description": "Kubernetes API on apiserver_port (CAPO opens 6443 only)",
		"direction": "ingress", "etherType": "IPv4", "protocol": "tcp",
		"portRangeMin": 7443, "portRangeMax": 7443, "remoteIPPrefix": "0.0.0.0/0",
	}})
	// The base rules stay.
	equal(t, osc(st), "spec.managedSecurityGroups.allowAllInClusterTraffic", true)
	equal(t, kcp(st), "spec.kubeadmConfigSpec.initConfiguration.localAPIEndpoint.bindPort", 7443)
	equal(t, kcp(st), "spec.kubeadmConfigSpec.joinConfiguration.controlPlane.localAPIEndpoint.bindPort", 7443)

	// The default (and 6443 given explicitly) leaves every template as it was.
	for _, vars := range []map[string]any{nil, {VarAPIServerPort: DefaultAPIServerPort}} {
		st := generate(t, tc{vars: vars})
		absent(t, osc(st), "spec.apiServerPort")
		absent(t, osc(st), "spec.managedSecurityGroups.controlPlaneNodesSecurityGroupRules")
		absent(t, kcp(st), "spec.kubeadmConfigSpec.initConfiguration.localAPIEndpoint")
		absent(t, kcp(st), "spec.kubeadmConfigSpec.joinConfiguration.controlPlane")
	}
	for _, bad := range []int{80, 65536} {
		if err := generateErr(tc{vars: map[string]any{VarAPIServerPort: bad}}); err == nil {
			t.Errorf("apiServerPort %d accepted", bad)
		}
	}
}
