package realopenstack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The env file hack/openstack.sh writes is read as KEY=VALUE lines
// (comments, blank lines and an export prefix allowed); a line that is not
// one, or a file without the stack's address, password, region or test
// domain, is an error naming what is wrong.
func TestEnvFileIsReadOrRefused(t *testing.T) {
	full := "OS_AUTH_URL=http://127.0.0.1:15000/v3\nOS_PASSWORD=pw\nOS_REGION_NAME=RegionOne\n" +
		"KEEL_OPENSTACK_TEST_DOMAIN=keel-test\nKEEL_OPENSTACK_FLAVORS=m1.tiny,m1.small\n"
	for _, tc := range []struct {
		name, file, err string
	}{
		{"as written", full, ""},
		{"comments and export", "# keel\n\nexport " + strings.ReplaceAll(full, "\n", "\nexport "), ""},
		{"not KEY=VALUE", full + "garbage\n", `line "garbage" is not KEY=VALUE`},
		{"no password", strings.Replace(full, "OS_PASSWORD=pw\n", "", 1), "OS_PASSWORD is missing"},
		{"no test domain", strings.Replace(full, "KEEL_OPENSTACK_TEST_DOMAIN=keel-test\n", "", 1), "KEEL_OPENSTACK_TEST_DOMAIN is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "env")
			if err := os.WriteFile(path, []byte(strings.TrimSuffix(tc.file, "export ")), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := load(path)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.AuthURL != "http://127.0.0.1:15000/v3" || c.Region != "RegionOne" || c.TestDomain != "keel-test" ||
				strings.Join(c.Flavors, " ") != "m1.tiny m1.small" || c.Var("OS_PASSWORD") != "pw" {
				t.Fatalf("read %+v", c)
			}
		})
	}
}
