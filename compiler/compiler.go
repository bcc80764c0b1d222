// Package compiler turns one Magnum cluster (its template, the cluster, its
// nodegroups and the OpenStack facts recorded at API time) into the Cluster
// API objects keel commits next to it. It is pure: no I/O, no clock, no
// randomness (names and keys are generated at API time and stored with the
// intent), and deterministic: the same input always gives the same bytes.
package compiler

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/yamlenc"
	"github.com/openkeel/keel/schemas"
)

// Labels on the CAPI Cluster and its children.
const (
	// LabelClusterUUID ties CAPI objects to the Magnum cluster (and selects
	// its ClusterResourceSets).
	LabelClusterUUID = intent.LabelClusterUUID
	// LabelNodeGroup and LabelNodeRole are synced by CAPI to the Nodes.
	LabelNodeGroup = "node.cluster.x-k8s.io/nodegroup"
	LabelNodeRole  = "node-role.kubernetes.io/"
)

// Input is everything the compiler needs for one cluster.
type Input struct {
	// Documents are the cluster's template, cluster, nodegroups and facts
	// as intent.ReadDocuments reads them from a repository.
	intent.Documents
	// Secrets is the cluster's key material and cloud credential, in
	// plaintext (see secrets.go); nil renders no Secrets.
	Secrets *SecretInput
	// Catalogue is the label schema the cluster is compiled with: the
	// repository's site narrowing (site.cue), whose defaults the compiler
	// fills in. The caller loads it (the compiler does no I/O); nil is
	// schemas.Default().
	Catalogue *schemas.Catalogue

	// effective are the cluster's effective labels, which Compile
	// computes once for all the parts of a compile (read-only).
	effective map[string]string
}

// Document is one rendered file, relative to the cluster's rendered folder.
//
// Its content is kept in parts, read through its methods: an addon
// payload is the same half megabyte in every cluster of a repository, and
// copying it into each cluster's ConfigMap was most of the cost of a
// compile. Writers that stream (Git blobs, `keel render`, the staleness
// check) never join the parts; Bytes does, for whoever needs one slice.
type Document struct {
	Path string
	// parts, concatenated, are the content. A part may be shared with other
	// documents and is never modified.
	parts [][]byte
}

// NewDocument is the document at path whose content is data (not copied).
func NewDocument(path string, data []byte) Document {
	return Document{Path: path, parts: [][]byte{data}}
}

// newDocumentParts is the document whose content is parts concatenated.
func newDocumentParts(path string, parts [][]byte) Document {
	return Document{Path: path, parts: parts}
}

// Bytes is the document's content, in one slice: shared with the document
// when it is in one part, a copy otherwise. nil for a document without
// content.
func (d Document) Bytes() []byte {
	switch len(d.parts) {
	case 0:
		return nil
	case 1:
		return d.parts[0]
	}
	return bytes.Join(d.parts, nil)
}

// Len is the length of the content.
func (d Document) Len() int {
	n := 0
	for _, p := range d.parts {
		n += len(p)
	}
	return n
}

// HasContent: the document carries content (a document naming a file only,
// e.g. a Secret kept as it is, has none).
func (d Document) HasContent() bool { return d.parts != nil }

// Equal: the content is b, byte for byte.
func (d Document) Equal(b []byte) bool {
	if d.Len() != len(b) {
		return false
	}
	for _, p := range d.parts {
		if !bytes.Equal(p, b[:len(p)]) {
			return false
		}
		b = b[len(p):]
	}
	return true
}

// WriteTo writes the content to w, part by part.
func (d Document) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range d.parts {
		m, err := w.Write(p)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Compile renders the Cluster API objects of one cluster.
func Compile(in Input) ([]Document, error) {
	c := &in.Cluster
	if c.StackID == "" {
		return nil, fmt.Errorf("cluster %s has no stack_id", c.UUID)
	}
	if c.ClusterClass == "" {
		return nil, fmt.Errorf("cluster %s does not record its ClusterClass", c.UUID)
	}
	if c.OnAdoptedClass() {
		return adoptedDocuments(in)
	}
	in.effective = effectiveLabels(in.catalogue(), c.Labels)
	cluster, vars, err := clusterObject(in)
	if err != nil {
		return nil, err
	}
	content, err := clusterContent(cluster, vars)
	if err != nil {
		return nil, err
	}
	clusterYAML, err := yamlenc.MarshalOrFallback(content)
	if err != nil {
		return nil, err
	}
	docs := []Document{NewDocument("cluster.yaml", clusterYAML)}
	addonDocs, err := addonDocuments(in)
	if err != nil {
		return nil, err
	}
	docs = append(docs, addonDocs...)
	autoscalerDocs, err := autoscalerDocuments(in)
	if err != nil {
		return nil, err
	}
	docs = append(docs, autoscalerDocs...)
	secretDocs, err := secretDocuments(in)
	if err != nil {
		return nil, err
	}
	docs = append(docs, secretDocs...)
	return withKustomization(docs), nil
}

// ClusterClass renders the shared ClusterClass called name and its templates.
func ClusterClass(name string) ([]Document, error) {
	objs, err := clusterclass.Objects(name)
	if err != nil {
		return nil, err
	}
	var docs []Document
	for _, o := range objs {
		data, err := MarshalObject(o)
		if err != nil {
			return nil, err
		}
		gvk := o.GetObjectKind().GroupVersionKind()
		docs = append(docs, NewDocument(lowerKind(gvk.Kind)+".yaml", data))
	}
	return withKustomization(docs), nil
}

// MarshalObject renders an object as YAML without the fields the API server
// owns (status, creationTimestamp), so that the bytes depend on intent only.
func MarshalObject(o client.Object) ([]byte, error) {
	return marshalClean(o)
}
