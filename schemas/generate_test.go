package schemas

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated files (docs/labels.md, schemas/labels_gen.go)")

// checkGenerated compares a generated file with its committed copy, or
// rewrites it with -update.
func checkGenerated(t *testing.T, repoPath string, want []byte) {
	t.Helper()
	path := "../" + repoPath
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./schemas (or go test ./schemas -run %s -update)", repoPath, t.Name())
	}
}

func TestLabelsGoConstants(t *testing.T) {
	src, err := Default().GenerateGoConstants()
	if err != nil {
		t.Fatal(err)
	}
	checkGenerated(t, GoConstantsFile, src)
}

func TestLabelsDoc(t *testing.T) {
	doc := Default().GenerateLabelsDoc()
	for _, l := range Default().Labels() {
		if !bytes.Contains(doc, []byte("`"+l.Name+"`")) {
			t.Errorf("%s missing from the generated doc", l.Name)
		}
	}
	if !strings.Contains(string(doc), "**immutable**") {
		t.Error("mutability not documented")
	}
	checkGenerated(t, LabelsDocFile, doc)
}
