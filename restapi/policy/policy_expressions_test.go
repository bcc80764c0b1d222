package policy

import (
	"testing"

	"github.com/openkeel/keel/restapi/auth"
)

// Expressions evaluate as oslo.policy's: roles, target fields, rule
// references, and/or/not with parentheses, constants; unknown rules deny,
// malformed expressions do not parse.
func TestPolicyExpressions(t *testing.T) {
	p, err := New(map[string]string{
		"t:role":    "role:member",
		"t:project": "project_id:%(project_id)s",
		"t:paren":   "role:admin or (role:member and not role:banned)",
		"t:rule":    "rule:project_member and rule:is_user",
		"t:always":  "@",
		"t:never":   "!",
		"t:empty":   "",
		"t:literal": "project_id:p1",
		"t:unknown": "rule:does_not_exist",
	})
	if err != nil {
		t.Fatal(err)
	}
	alice := &auth.Credentials{UserID: "u1", ProjectID: "p1", Roles: []string{"member"}}
	banned := &auth.Credentials{UserID: "u2", ProjectID: "p1", Roles: []string{"member", "banned"}}
	own := Target{"project_id": "p1", "user_id": "u1"}
	other := Target{"project_id": "p2", "user_id": "u9"}
	for _, tc := range []struct {
		rule   string
		creds  *auth.Credentials
		target Target
		want   bool
	}{
		{"t:role", alice, nil, true},
		{"t:project", alice, own, true},
		{"t:project", alice, other, false},
		{"t:paren", alice, nil, true},
		{"t:paren", banned, nil, false},
		{"t:rule", alice, own, true},
		{"t:rule", alice, Target{"project_id": "p1", "user_id": "u2"}, false},
		{"t:always", &auth.Credentials{}, nil, true},
		{"t:never", alice, nil, false},
		{"t:empty", &auth.Credentials{}, nil, true},
		{"t:literal", alice, other, true},
		{"t:unknown", alice, nil, false},
		{"no:such:rule", alice, nil, false},
		{"cluster:update_health_status", alice, nil, true},
		{"credential:rotate", &auth.Credentials{ProjectID: "p1", Roles: []string{"admin"}}, own, false},
	} {
		if got := p.Allowed(tc.rule, tc.creds, tc.target); got != tc.want {
			t.Errorf("%s for %v on %v = %v, want %v", tc.rule, tc.creds.Roles, tc.target, got, tc.want)
		}
	}
	for _, bad := range []string{"role:a and", "(role:a", "role:a)", "nonsense", "foo:bar"} {
		if _, err := New(map[string]string{"x": bad}); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
