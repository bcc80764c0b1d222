package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// classNamePrefix names every keel ClusterClass; the rest of the name is the
// release and the digest of the class's content.
const classNamePrefix = "magnum-"

var classDigest = sync.OnceValues(func() (string, error) {
	// Rendered under a fixed name so that the digest covers the content
	// (variables, patches, templates) and not the name it is about to get.
	docs, err := ClusterClass(classNamePrefix + "digest")
	if err != nil {
		return "", err
	}
	return digestDocuments(docs), nil
})

// ClusterClassName is the name of the ClusterClass this build renders:
// "magnum-<release>-<digest>". The repository writes a class folder only when
// it is absent and clusters stay pinned to the class they were created on,
// so a class whose content changed under an unchanged name would leave
// running clusters on a class that no longer matches what the compiler
// renders for them; naming the class by its content makes any change (a new
// variable, a changed patch) a new class that only an upgrade moves a
// cluster to, while every class still in use stays in clusterclasses/.
func ClusterClassName(release string) (string, error) {
	d, err := classDigest()
	if err != nil {
		return "", err
	}
	return classNamePrefix + release + "-" + d, nil
}

// digestDocuments is the first 10 hex digits of the SHA-256 of the
// documents' paths and bytes.
func digestDocuments(docs []Document) string {
	h := sha256.New()
	for _, d := range docs {
		h.Write([]byte(d.Path))
		h.Write([]byte{0})
		_, _ = d.WriteTo(h) // a hash does not fail
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:10]
}
