package compiler

import (
	"bytes"
	"fmt"
)

// MarshalDocuments joins rendered documents into one YAML stream (what
// `keel render` prints), each preceded by a comment naming its file.
func MarshalDocuments(docs []Document) []byte {
	var b bytes.Buffer
	for i, d := range docs {
		if d.Path == KustomizationFile {
			continue
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, "# %s\n", d.Path)
		_, _ = d.WriteTo(&b) // a bytes.Buffer does not fail
	}
	return b.Bytes()
}
