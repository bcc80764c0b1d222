package schemas

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTypoIsViolationWithSuggestion(t *testing.T) {
	c := Default()
	for typo, want := range map[string]string{
		"boot_volume_szie":           "boot_volume_size", // swap
		"boot_volum_size":            "boot_volume_size", // deletion
		"boot_volumee_size":          "boot_volume_size", // insertion
		"boot_volume_sise":           "boot_volume_size", // substitution
		"kube-tag":                   "kube_tag",         // dash
		"Kube_Tag":                   "kube_tag",         // case
		"api_server_lb_allowed_cidr": "api_server_lb_allowed_cidrs",
	} {
		vs, ws := c.ValidateLabels(ScopeCluster, map[string]string{typo: "x"}, ValidateOptions{})
		x := violationFor(t, vs, "labels."+typo)
		if !strings.Contains(x.Message, "did you mean "+want+"?") {
			t.Errorf("%s: %q", typo, x.Message)
		}
		if len(ws) != 0 {
			t.Errorf("%s: also warned: %v", typo, ws)
		}
		if got := c.Suggest(typo); !slices.Equal(got, []string{want}) {
			t.Errorf("Suggest(%s) = %v", typo, got)
		}
	}
}

func TestUnknownLabelsAreWarnings(t *testing.T) {
	c := Default()
	labels := map[string]string{"test": "test", "kube_tgga": "v1", "example.com/team": "a", "flanel_tag": "x"}
	vs, ws := c.ValidateLabels(ScopeCluster, labels, ValidateOptions{})
	if len(vs) != 0 {
		t.Fatalf("unknown labels must pass: %v", vs)
	}
	for name := range labels {
		if !hasWarning(ws, "labels."+name, "unknown label") {
			t.Errorf("%s: no unknown-label warning in %v", name, ws)
		}
	}
	// Heat-era labels are reported as ignored; secrets among them loudly.
	_, ws = c.ValidateLabels(ScopeCluster, map[string]string{LabelFlannelTag: "v0.1", LabelGrafanaAdminPasswd: "hunter2"}, ValidateOptions{})
	if !hasWarning(ws, "labels.flannel_tag", "ignored") || !hasWarning(ws, "labels.grafana_admin_passwd", "secret") {
		t.Errorf("warnings: %v", ws)
	}
}

func TestOSA(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"abc", "abc", 0}, {"abc", "acb", 1}, {"abc", "ab", 1}, {"abc", "abcd", 1}, {"abc", "abd", 1}, {"abc", "cab", 2}, {"", "a", 1}, {"ab", "ba", 1}, {"abcdef", "ab", 2}} {
		if got := osa([]rune(tc.a), []rune(tc.b)); got != tc.d {
			t.Errorf("osa(%q,%q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

// FuzzValidateLabels: validation never panics, and on unknown names the
// schema's typo rule (typos.cue) and Go's (typo.go) agree.
func FuzzValidateLabels(f *testing.F) {
	for _, s := range []string{"boot_volume_szie", "kube_tag", "test", "Kube-Tag", "kube_tagg", "flanel_tag", "x", "ſtuff", "auto_healing_enabledd"} {
		f.Add(s, "v1.2.3")
	}
	c := Default()
	f.Fuzz(func(t *testing.T, name, value string) {
		if !utf8.ValidString(name) || !utf8.ValidString(value) || name == "" {
			t.Skip("label names and values are UTF-8 text")
		}
		vs, ws := c.ValidateLabels(ScopeCluster, map[string]string{name: value}, ValidateOptions{})
		if _, known := c.Lookup(name); known {
			return
		}
		suggested := len(c.Suggest(name)) > 0
		if suggested != (len(vs) == 1) || suggested == (len(ws) == 1) {
			t.Fatalf("%q: Suggest=%v but violations=%v warnings=%v", name, c.Suggest(name), vs, ws)
		}
	})
}
