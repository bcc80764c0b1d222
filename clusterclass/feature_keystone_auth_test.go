package clusterclass

import "testing"

func TestKeystoneAuth(t *testing.T) {
	a := args(t, kcp(generate(t, tc{})), apiServerArgs) // enabled by default
	if a["authentication-token-webhook-config-file"] != WebhookConfigPath || a["authorization-webhook-config-file"] != WebhookConfigPath {
		t.Errorf("webhook flags = %v", a)
	}
	if a["authorization-mode"] != "Node,Webhook,RBAC" {
		t.Errorf("authorization-mode = %q", a["authorization-mode"])
	}
	a = args(t, kcp(generate(t, tc{vars: map[string]any{VarEnableKeystoneAuth: false}})), apiServerArgs)
	if _, ok := a["authorization-mode"]; ok {
		t.Error("keystone webhook without keystone auth")
	}
}
