package compiler

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// KustomizationFile is the kustomization of every rendered folder, so that
// the folder is also consumable by a real Flux kustomize-controller.
const KustomizationFile = "kustomization.yaml"

func marshalClean(o client.Object) ([]byte, error) {
	var m map[string]any
	if u, ok := o.(runtime.Unstructured); ok {
		m = runtime.DeepCopyJSON(u.UnstructuredContent())
	} else {
		var err error
		if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(o); err != nil {
			return nil, fmt.Errorf("converting %T: %w", o, err)
		}
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return yaml.Marshal(m)
}

// withKustomization appends a kustomization.yaml listing the documents.
func withKustomization(docs []Document) []Document {
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	var b strings.Builder
	b.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "- %s\n", d.Path)
	}
	return append(docs, Document{Path: KustomizationFile, Data: []byte(b.String())})
}

func lowerKind(kind string) string { return strings.ToLower(kind) }

// WithKustomization sorts documents by path and appends the
// kustomization.yaml listing them (for tools that assemble a rendered folder
// from the compiler's documents and others, e.g. encrypted Secrets).
func WithKustomization(docs []Document) []Document { return withKustomization(docs) }
