package restapi

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Under Keystone, the OpenStack lookups run as the caller with their own
// token, as Magnum's do: alice's private image, the flavor shared with her
// project and her own keypair resolve, which keel's service user (no
// admin) could not see; bob's keypair is not hers (404, as in Magnum).
// Her token is never written to Git, the read model or the logs.
func TestKeystoneLookupsRunAsTheCaller(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)

	r := a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1"))
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmplID, _ := r.json(t)["uuid"].(string)
	cluster := func(name, keypair string) map[string]any {
		return map[string]any{"name": name, "cluster_template_id": tmplID, "master_count": 1, "node_count": 1, "keypair": keypair}
	}
	r = a.doToken(tok, "POST", "/v1/clusters", cluster("c1", "alice-key"))
	if r.status != http.StatusAccepted {
		t.Fatalf("cluster with alice's keypair: %d %s", r.status, r.body)
	}
	a.expectNoCommit(func() {
		expectError(t, a.doToken(tok, "POST", "/v1/clusters", cluster("c2", "bob-key")), http.StatusNotFound, "Unable to find keypair bob-key.")
	})

	// Every lookup was alice's, with her token: not the service user's.
	seen := a.services.requests()
	if len(seen) == 0 {
		t.Fatal("no lookup reached OpenStack")
	}
	keypairs := 0
	for _, s := range seen {
		if !strings.HasPrefix(s, ksMember.Name+" ") {
			t.Errorf("lookup %q was not made with alice's token", s)
		}
		if strings.Contains(s, "os-keypairs/") {
			keypairs++
			if strings.Contains(s, "user_id=") {
				t.Errorf("lookup %q names a user: alice's own keypairs need none", s)
			}
		}
	}
	if keypairs != 2 {
		t.Errorf("%d keypair lookups, want 2: %q", keypairs, seen)
	}

	// The recorded facts are what alice's lookups resolved.
	facts := a.readFile(t, "facts.yaml")
	for _, want := range []string{p1ImageID, "m1.p1"} {
		if !strings.Contains(facts, want) {
			t.Errorf("facts.yaml lacks %q:\n%s", want, facts)
		}
	}

	// The token is nowhere: Git (every commit and blob), the read model's
	// files, the logs.
	repo := a.store.Repo()
	commits, err := repo.CommitObjects()
	if err != nil {
		t.Fatal(err)
	}
	_ = commits.ForEach(func(c *object.Commit) error {
		if strings.Contains(c.Message, tok) {
			t.Errorf("commit %s carries the token", c.Hash)
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
		if strings.Contains(string(data), tok) {
			t.Errorf("blob %s carries the token", b.Hash)
		}
		return nil
	})
	root := filepath.Dir(a.store.Dir())
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, a.store.Dir()) {
			return err
		}
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), tok) {
			t.Errorf("%s carries the token", path)
		}
		return nil
	})
	if logs := a.log.String(); strings.Contains(logs, tok) {
		t.Errorf("the logs carry the token:\n%s", logs)
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
