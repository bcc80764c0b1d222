package compiler

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// The ClusterClass is named by its content: the name is stable for one
// build, follows any change of a rendered byte, and the class rendered under
// it carries it.
func TestClusterClassNameFollowsContent(t *testing.T) {
	a, err := ClusterClassName("v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ClusterClassName("v0.1.0")
	if a != b {
		t.Fatalf("ClusterClassName not stable: %q then %q", a, b)
	}
	if !regexp.MustCompile(`^magnum-v0\.1\.0-[0-9a-f]{10}$`).MatchString(a) {
		t.Fatalf("ClusterClassName = %q, want magnum-v0.1.0-<10 hex digits>", a)
	}
	if len(a) > 63 {
		t.Fatalf("ClusterClassName %q is longer than a Kubernetes label value", a)
	}

	docs, err := ClusterClass(classNamePrefix + "digest")
	if err != nil {
		t.Fatal(err)
	}
	if got := digestDocuments(docs); !strings.HasSuffix(a, "-"+got) {
		t.Fatalf("name %q does not end with the digest %q of the rendered class", a, got)
	}
	// One changed byte anywhere (a patch, a variable default) is a new name.
	for i := range docs {
		changed := append([]Document(nil), docs...)
		changed[i] = NewDocument(docs[i].Path, append(bytes.Clone(docs[i].Bytes()), ' '))
		if digestDocuments(changed) == digestDocuments(docs) {
			t.Errorf("changing %s leaves the digest unchanged", docs[i].Path)
		}
	}

	named, err := ClusterClass(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range named {
		if d.Path != KustomizationFile && !bytes.Contains(d.Bytes(), []byte("name: "+a+"\n")) {
			t.Errorf("%s rendered under %q does not carry that name", d.Path, a)
		}
	}
}
