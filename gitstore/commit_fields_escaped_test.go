package gitstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Control characters in a commit's subject, body, trailer values and author
// are escaped: the subject and each trailer stay one line (a value cannot
// forge a trailer), and `git fsck --strict` has nothing to say (a NUL was
// its nulInCommit warning; a '<' or newline in a name its badName error).
func TestCommitFieldsEscaped(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
		return &Commit{
			Subject:  "clustertemplate a\x00b\nKeel-Operation: delete\r\u2028\x7f\u0085\xff",
			Body:     "line one\n\tline two\x00\x1b[31m",
			Author:   Signature{Name: "eve <eve@x>\nKeel-User: root", Email: "eve@x> <root@y\x00"},
			Trailers: []Trailer{{"Keel-Operation", "update\n\nKeel-Operation: delete"}, {"Keel-Project", "p1\x00"}},
			Changes:  []Change{{Path: "x.yaml", Data: []byte("x\n")}},
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Repo().CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	subject := strings.SplitN(c.Message, "\n", 2)[0]
	if want := `clustertemplate a\x00b\x0aKeel-Operation: delete\x0d\u2028\x7f\u0085` + "\uFFFD"; subject != want {
		t.Errorf("subject %q, want %q", subject, want)
	}
	tr := ParseTrailers(c.Message)
	if tr["Keel-Operation"] != `update\x0a\x0aKeel-Operation: delete` || tr["Keel-Project"] != `p1\x00` || len(tr) != 2 {
		t.Errorf("trailers %q", tr)
	}
	if strings.ContainsAny(c.Author.Name, "<>\n") || strings.ContainsAny(c.Author.Email, "<> \n\x00") {
		t.Errorf("author %q <%q>", c.Author.Name, c.Author.Email)
	}
	if !strings.Contains(c.Message, "\tline two\\x00\\x1b[31m") {
		t.Errorf("body not kept with its tab and newline: %q", c.Message)
	}
	expectFsckClean(t, s.Dir())
	expectClones(t, s.Dir())
}
