package gitstore

import (
	"context"
	"testing"
)

// Deleting a folder and writing into it in the same commit replaces it: the
// files the commit does not write again are gone (how a re-render drops a
// document the compiler no longer makes).
func TestDeleteThenWriteReplacesFolder(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	commit := func(changes ...Change) {
		t.Helper()
		if _, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
			return &Commit{Subject: "c", Author: Signature{Name: "t", Email: "t@x"}, Changes: changes}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	commit(Change{Path: "d/r/a.yaml", Data: []byte("a")}, Change{Path: "d/r/b.yaml", Data: []byte("b")}, Change{Path: "d/keep", Data: []byte("k")})
	commit(Change{Path: "d/r", Delete: true}, Change{Path: "d/r/b.yaml", Data: []byte("b2")})
	sn, err := s.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	if sn.Exists("d/r/a.yaml") {
		t.Error("d/r/a.yaml survived the replacement of d/r")
	}
	if b, err := sn.ReadFile("d/r/b.yaml"); err != nil || string(b) != "b2" {
		t.Errorf("d/r/b.yaml = %q, %v", b, err)
	}
	if !sn.Exists("d/keep") {
		t.Error("d/keep, outside the replaced folder, is gone")
	}
}
