package main

import (
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// repoFiles lays out the three-nodegroup test cluster as a repository
// would store it (intent and facts, no rendered output yet).
func repoFiles(t *testing.T) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile("../../compiler/testdata/three-nodegroups.input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in, err := intent.ParseDocuments(data)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	put := func(p string, v any) {
		b, err := intent.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = b
	}
	dir := intent.ClusterDirOf(&in.Cluster)
	put(intent.TemplatePath(in.Template.ProjectID, in.Template.UUID), in.Template)
	put(path.Join(dir, intent.ClusterFile), in.Cluster)
	for _, ng := range in.NodeGroups {
		put(intent.NodeGroupPath(dir, ng.Name), ng)
	}
	f, err := intent.MarshalFacts(in.Facts)
	if err != nil {
		t.Fatal(err)
	}
	files[path.Join(dir, intent.FactsFile)] = f
	return files
}

// commitFiles writes files to a store's main as one commit.
func commitFiles(t *testing.T, st *gitstore.Store, files map[string][]byte) {
	t.Helper()
	_, err := st.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
		c := &gitstore.Commit{Subject: "test", Author: gitstore.Signature{Name: "t", Email: "t@t"}}
		for p, d := range files {
			c.Changes = append(c.Changes, gitstore.Change{Path: p, Data: d})
		}
		return c, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := compileCmd()
	switch args[0] {
	case "plan":
		cmd = planCmd()
	}
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args[1:])
	cmd.SetContext(context.Background())
	err := cmd.Execute()
	return out.String(), err
}

// keel compile renders a checkout; --check then passes, and fails once an
// intent document changes without its output.
func TestCompileCheckout(t *testing.T) {
	root := t.TempDir()
	for p, data := range repoFiles(t) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(t, "compile", "--repo", root, "--check"); err == nil {
		t.Fatalf("--check passed without rendered output:\n%s", out)
	}
	if out, err := run(t, "compile", "--repo", root); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	if out, err := run(t, "compile", "--repo", root, "--check"); err != nil {
		t.Fatalf("--check after compile: %v\n%s", err, out)
	}
	ng := filepath.Join(root, "projects/p1/clusters/demo-kube-ab12c/nodegroups/gpu.yaml")
	data, _ := os.ReadFile(ng)
	if err := os.WriteFile(ng, bytes.Replace(data, []byte("\nnode_count: 1\n"), []byte("\nnode_count: 3\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "compile", "--repo", root, "--check")
	if err == nil || !strings.Contains(out, "stale: projects/p1/clusters/demo-kube-ab12c (outdated cluster.yaml)") {
		t.Fatalf("--check after a nodegroup change: %v\n%s", err, out)
	}
}

// keel plan on a bare repository: a nodegroup flavor change rolls that
// nodegroup only.
func TestPlanBareRepository(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo.git")
	st, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := repoFiles(t)
	commit := func(files map[string][]byte) { commitFiles(t, st, files) }
	render := func(files map[string][]byte) map[string][]byte {
		t.Helper()
		root := t.TempDir()
		for p, data := range files {
			full := filepath.Join(root, filepath.FromSlash(p))
			_ = os.MkdirAll(filepath.Dir(full), 0o755)
			_ = os.WriteFile(full, data, 0o644)
		}
		if out, err := run(t, "compile", "--repo", root); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		out := map[string][]byte{}
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				rel, _ := filepath.Rel(root, p)
				out[filepath.ToSlash(rel)], _ = os.ReadFile(p)
			}
			return nil
		})
		return out
	}
	commit(render(files))
	ngPath := "projects/p1/clusters/demo-kube-ab12c/nodegroups/edge.yaml"
	files[ngPath] = bytes.Replace(files[ngPath], []byte("flavor_id: c1.small"), []byte("flavor_id: m1.large"), 1)
	commit(render(files))

	out, err := run(t, "plan", "--repo", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(out)
	for _, want := range []string{"cluster kube-ab12c: rolls machines", "nodegroup edge: rolls machines", "spec.template.spec.flavor: \"c1.small\" → \"m1.large\""} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "control plane:") || strings.Contains(out, "nodegroup gpu") {
		t.Errorf("plan touches more than the edge nodegroup:\n%s", out)
	}
}
