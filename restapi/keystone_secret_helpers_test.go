package restapi

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// expectNowhere checks that secret (a caller's token, a credential's
// secret) is in no commit message, no blob of any commit, no file of the
// read model or the data folder, and no log line.
func (a *keystoneCloudAPI) expectNowhere(t *testing.T, secret string) {
	t.Helper()
	repo := a.store.Repo()
	commits, err := repo.CommitObjects()
	if err != nil {
		t.Fatal(err)
	}
	_ = commits.ForEach(func(c *object.Commit) error {
		if strings.Contains(c.Message, secret) {
			t.Errorf("commit %s carries the secret", c.Hash)
		}
		return nil
	})
	blobs, err := repo.BlobObjects()
	if err != nil {
		t.Fatal(err)
	}
	_ = blobs.ForEach(func(b *object.Blob) error {
		rd, err := b.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		data, _ := io.ReadAll(rd)
		if strings.Contains(string(data), secret) {
			t.Errorf("blob %s carries the secret", b.Hash)
		}
		return nil
	})
	root := filepath.Dir(a.store.Dir())
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, a.store.Dir()) {
			return err
		}
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), secret) {
			t.Errorf("%s carries the secret", path)
		}
		return nil
	})
	if strings.Contains(a.log.String(), secret) {
		t.Error("the logs carry the secret")
	}
}

// readFile returns the content of the one file named name under HEAD's
// clusters folder.
func (a *keystoneCloudAPI) readFile(t *testing.T, name string) string {
	t.Helper()
	h, err := a.store.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.store.Repo().CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var out string
	_ = tree.Files().ForEach(func(f *object.File) error {
		if filepath.Base(f.Name) == name {
			out, err = f.Contents()
		}
		return err
	})
	if out == "" {
		t.Fatalf("no %s at HEAD", name)
	}
	return out
}
