package capo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/openkeel/keel/mgmtcluster/binaries"
)

// The CAPO binary the real-OpenStack tests run must be the version whose
// CRDs keel installs and whose API types keel renders (keel's go.mod), and
// ORC the version that CAPO itself requires: otherwise the tests would
// prove keel against a CAPO no user runs beside it.
func TestCAPOVersionMatchesKeel(t *testing.T) {
	root, err := binaries.SourceRoot()
	if err != nil {
		t.Fatal(err)
	}
	keel := requires(t, filepath.Join(root, "go.mod"))
	capo := requires(t, filepath.Join(root, "hack", "capo", "go.mod"))
	orc := requires(t, filepath.Join(root, "hack", "orc", "go.mod"))
	for _, c := range []struct{ what, got, want string }{
		{"hack/capo/go.mod's CAPO (keel's go.mod)", capo[CAPOModule], keel[CAPOModule]},
		{"hack/orc/go.mod's ORC (what CAPO requires, hack/capo/go.mod)", orc[ORCModule], capo[ORCModule]},
	} {
		if c.got == "" || c.got != c.want {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
}

// requires reads a go.mod's required versions by module path.
func requires(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range f.Require {
		out[r.Mod.Path] = r.Mod.Version
	}
	return out
}
