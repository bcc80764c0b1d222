package schemas

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const corpus = "testdata/corpus"

// corpusFiles lists the documents of the corpus; a path containing "bad"
// (any case) is expected to be refused, any other to pass.
func corpusFiles(t *testing.T) (files []string, bad map[string]bool) {
	t.Helper()
	files, err := intentFiles(corpus)
	if err != nil {
		t.Fatal(err)
	}
	bad = map[string]bool{}
	for _, f := range files {
		bad[f] = strings.Contains(strings.ToLower(f), "bad")
	}
	if len(files) < 20 {
		t.Fatalf("corpus has %d files", len(files))
	}
	return files, bad
}

// vetVerdicts runs Vet and returns, per file, whether it has a violation.
func vetVerdicts(t *testing.T, root string, o VetOptions) (map[string]bool, []Violation, []Warning) {
	t.Helper()
	vs, ws, err := Vet(root, o)
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, v := range vs {
		file, _, ok := strings.Cut(v.Field, ":")
		if !ok {
			t.Errorf("violation field %q is not prefixed with its file", v.Field)
		}
		failed[file] = true
	}
	return failed, vs, ws
}

func TestVetCorpus(t *testing.T) {
	files, bad := corpusFiles(t)
	failed, vs, ws := vetVerdicts(t, corpus, VetOptions{})
	for _, f := range files {
		if failed[f] != bad[f] {
			t.Errorf("%s: refused=%v, want %v", f, failed[f], bad[f])
		}
	}
	for _, v := range vs {
		if v.Message == "" {
			t.Errorf("empty message: %+v", v)
		}
	}
	tmpl := "projects/0123456789abcdef0123456789abcdef/clustertemplates/00000000-0000-4000-8000-000000000001.yaml"
	if !hasWarning(ws, tmpl+":labels.flannel_tag", "ignored") || !hasWarning(ws, tmpl+":labels.test", "unknown") {
		t.Errorf("warnings %v", ws)
	}
	typo := "projects/0123456789abcdef0123456789abcdef/clustertemplates/bad00003-0000-4000-8000-000000000003.yaml:labels.boot_volume_szie"
	if x := violationFor(t, vs, typo); !strings.Contains(x.Message, "boot_volume_size") {
		t.Errorf("typo: %+v", x)
	}
}

func TestVetExampleRepository(t *testing.T) {
	vs, ws, err := Vet("../examples/cluster-repo", VetOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 || len(ws) != 0 {
		t.Errorf("examples/cluster-repo is not clean:\n%v\n%v", vs, ws)
	}
}

// Vet checks what no single document can: where a file is and what it
// references.
func TestVetLayoutAndReferences(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "../examples/cluster-repo", root)
	p := "projects/0123456789abcdef0123456789abcdef"
	cl := p + "/clusters/prod-kube-a1b2c"
	mv(t, root, cl, p+"/clusters/other-kube-a1b2c")
	cl = p + "/clusters/other-kube-a1b2c"
	edit(t, root, cl+"/nodegroups/default-worker.yaml", "cluster_id: 7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b", "cluster_id: 7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0c")
	edit(t, root, cl+"/cluster.yaml", "cluster_template_id: 5b6c3f0e-8a1d-4c2e-9f3a-1d2e3f4a5b6c", "cluster_template_id: 5b6c3f0e-8a1d-4c2e-9f3a-1d2e3f4a5b6d")
	mv(t, root, cl+"/nodegroups/default-master.yaml", cl+"/nodegroups/masters.yaml")
	edit(t, root, cl+"/nodegroups/masters.yaml", "name: default-master", "name: masters") // no default-master left
	write(t, root, p+"/notes.yaml", "a: b\n")
	write(t, root, cl+"/rendered/cluster.yaml", "not: validated\n")

	_, vs, ws := vetVerdicts(t, root, VetOptions{})
	want := []string{
		cl + "/cluster.yaml:cluster_template_id",
		cl + "/cluster.yaml:name",
		cl + "/nodegroups/default-worker.yaml:cluster_id",
	}
	if got := fields(vs); !slices.Equal(got, want) {
		t.Errorf("violations:\n%v\nwant fields %v", vs, want)
	}
	if !hasWarning(ws, p+"/notes.yaml", "not a keel document") || !hasWarning(ws, cl+"/cluster.yaml", "no default-master") {
		t.Errorf("warnings %v", ws)
	}
}

func TestVetSiteFile(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "../examples/cluster-repo", root)
	// The example's site allows ovn only; a stricter site refuses its zones.
	write(t, root, "site.cue", "package schemas\nsite: allowed: availability_zone: [\"az9\"]\n")
	_, vs, _ := vetVerdicts(t, root, VetOptions{})
	if len(vs) == 0 {
		t.Fatal("site narrowing not applied")
	}
	write(t, root, "site.cue", "package schemas\nsite: defaults: boot_volume_size: \"big\"\n")
	if _, _, err := Vet(root, VetOptions{}); err == nil || !strings.Contains(err.Error(), "site.cue") {
		t.Errorf("bad site file: err = %v", err)
	}
	if _, _, err := Vet(root, VetOptions{SiteFile: "missing.cue"}); err == nil {
		t.Error("an explicit missing site file must be an error")
	}
	os.Remove(filepath.Join(root, "site.cue"))
	if _, _, err := Vet(root, VetOptions{}); err != nil {
		t.Errorf("no site file: %v", err)
	}
	// Strict mode from the options.
	edit(t, root, "projects/0123456789abcdef0123456789abcdef/clusters/prod-kube-a1b2c/cluster.yaml", "  kube_tag: v1.32.4\n", "  kube_tag: v1.32.4\n  team: a\n")
	_, vs, _ = vetVerdicts(t, root, VetOptions{Strict: true})
	if len(vs) != 1 || !strings.HasSuffix(vs[0].Field, ":labels.team") {
		t.Errorf("strict: %v", vs)
	}
	_, vs, _ = vetVerdicts(t, root, VetOptions{Strict: true, Allow: []string{"team"}})
	if len(vs) != 0 {
		t.Errorf("strict with allow: %v", vs)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, root, rel, old, new string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s: %q not found", rel, old)
	}
	write(t, root, rel, strings.Replace(string(data), old, new, 1))
}

func mv(t *testing.T, root, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
		t.Fatal(err)
	}
}
