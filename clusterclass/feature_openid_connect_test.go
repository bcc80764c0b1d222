package clusterclass

import "testing"

func TestOpenIDConnect(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarOpenIDConnect: map[string]any{
		"issuerUrl": "https://sso.example.com", "clientId": "kubernetes", "usernameClaim": "email", "usernamePrefix": "oidc:",
		"groupsClaim": "groups", "groupsPrefix": "",
	}}})
	a := args(t, kcp(st), apiServerArgs)
	for k, v := range map[string]string{"oidc-issuer-url": "https://sso.example.com", "oidc-client-id": "kubernetes",
		"oidc-username-claim": "email", "oidc-username-prefix": "oidc:", "oidc-groups-claim": "groups"} {
		if a[k] != v {
			t.Errorf("%s = %q, want %q", k, a[k], v)
		}
	}
	if _, ok := a["oidc-groups-prefix"]; ok {
		t.Error("empty oidc-groups-prefix flag")
	}
	if _, ok := args(t, kcp(generate(t, tc{})), apiServerArgs)["oidc-issuer-url"]; ok {
		t.Error("OIDC enabled without an issuer")
	}
}
