package compiler

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// testInputs are the realistic clusters of testdata/*.input.yaml, by name.
func testInputs(t testing.TB) map[string]Input {
	t.Helper()
	files, err := filepath.Glob("testdata/*.input.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test inputs: %v", err)
	}
	out := map[string]Input{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := intent.ParseDocuments(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".input.yaml")] = Input{Documents: *d}
	}
	return out
}

// Each realistic cluster renders exactly its golden file (reviewed in diffs;
// regenerate with go test ./compiler -update).
func TestGolden(t *testing.T) {
	for name, in := range testInputs(t) {
		t.Run(name, func(t *testing.T) {
			docs, err := Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := MarshalDocuments(docs)
			path := filepath.Join("testdata", name+".golden.yaml")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./compiler -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s (run go test ./compiler -update and review the diff)", name, path)
			}
		})
	}
}

// The shared ClusterClass renders its golden file too.
func TestGoldenClusterClass(t *testing.T) {
	docs, err := ClusterClass("magnum-v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	got := MarshalDocuments(docs)
	path := filepath.Join("testdata", "clusterclass.golden.yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compiler -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("ClusterClass differs from %s (run go test ./compiler -update and review the diff)", path)
	}
}
