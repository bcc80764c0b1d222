package magnumimport_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

func newRepo(t testing.TB) *gitstore.Store {
	t.Helper()
	st, err := gitstore.Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func read(t testing.TB, m mdb.DB) *magnumimport.Magnum {
	t.Helper()
	src, err := magnumimport.ParseURL(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, err := magnumimport.Read(context.Background(), src)
	if err != nil {
		t.Fatalf("%s: %v", m.Name, err)
	}
	return got
}

func head(t testing.TB, st *gitstore.Store) string {
	t.Helper()
	h, err := st.Head()
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// git runs git on the repository and returns its output.
func git(t testing.TB, st *gitstore.Store, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", st.Dir()}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func openAgain(dir string) (*gitstore.Store, error) { return gitstore.Open(dir) }
