package gitstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A change whose path is not one keel writes is refused before anything is
// committed, whoever built it: CheckPath is the one gate of every tree.
func TestChangePathRefused(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := s.Head()
	for _, p := range []string{
		"", "/", "a//b", "/a", "a/", ".", "..", "../etc.yaml", "projects/../../etc/x.yaml",
		"quotas/./p.yaml", ".git/config", "a/.GIT/x", ".gitmodules", "a/.Gitattributes",
		"a\x00b", "a\nb", "a b", "a\\b", "ü.yaml", "a/..hidden", strings.Repeat("a", 256),
		strings.Repeat("a/", 600) + "a",
	} {
		_, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
			return &Commit{Subject: "x", Changes: []Change{{Path: "ok.yaml", Data: []byte("x")}, {Path: p, Data: []byte("x")}}}, nil
		})
		if !errors.Is(err, ErrInvalidPath) {
			t.Errorf("path %q: %v, want ErrInvalidPath", p, err)
		}
	}
	if after, _ := s.Head(); after != before {
		t.Fatalf("HEAD moved %s → %s", before, after)
	}
	for _, p := range []string{".keel/sequences.yaml", ".sops.yaml", "projects/p_1/clusters/a.b-kube-x1y2z/cluster.yaml", "clusterclasses/magnum-v0.1.0/x.yaml"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v, want nil", p, err)
		}
	}
}
