package compiler

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
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
			got := MarshalDocuments(goldenView(t, docs))
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

// goldenView shortens the large addon payloads (Calico's manifest is ten
// thousand lines, the same in every golden file) to what a reviewer reads
// in a diff: the objects, their images and a digest of the exact bytes, so
// that any change still fails the test. The addon packages test the
// payloads' content.
func goldenView(t *testing.T, docs []Document) []Document {
	t.Helper()
	const large = 64 << 10
	out := make([]Document, len(docs))
	for i, d := range docs {
		out[i] = d
		var cm corev1.ConfigMap
		if len(d.Bytes()) < large || yaml.Unmarshal(d.Bytes(), &cm) != nil || cm.Kind != "ConfigMap" {
			continue
		}
		for k, v := range cm.Data {
			if len(v) < large {
				continue
			}
			objs, err := addons.Decode(v)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%d bytes, sha256 %x, %d objects:\n", len(v), sha256.Sum256([]byte(v)), len(objs))
			for _, o := range objs {
				fmt.Fprintf(&b, "%s %s/%s\n", o.GetKind(), o.GetNamespace(), o.GetName())
				for _, f := range []string{"initContainers", "containers"} {
					cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", f)
					for _, c := range cs {
						if c, ok := c.(map[string]any); ok {
							fmt.Fprintf(&b, "  %s: %v\n", c["name"], c["image"])
						}
					}
				}
			}
			cm.Data[k] = b.String()
		}
		data, err := MarshalObject(&cm)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = NewDocument(d.Path, data)
	}
	return out
}
