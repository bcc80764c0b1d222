package binaries

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The Go constants and the tools module must name the same versions, or keel
// would look for binaries that hack/testbin.sh never builds.
func TestVersionsMatchToolsModule(t *testing.T) {
	root, err := SourceRoot()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "hack", "tools", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for mod1, want := range map[string]string{
		`k8s\.io/kubernetes`:          KubernetesVersion,
		`go\.etcd\.io/etcd/server/v3`: EtcdVersion,
	} {
		m := regexp.MustCompile(`(?m)^\s+` + mod1 + `\s+(\S+)`).FindSubmatch(mod)
		if m == nil {
			t.Fatalf("%s is not required in hack/tools/go.mod", mod1)
		}
		if string(m[1]) != want {
			t.Errorf("hack/tools/go.mod requires %s %s, mgmtcluster/binaries says %s", mod1, m[1], want)
		}
	}
}
