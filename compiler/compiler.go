// Package compiler turns one Magnum cluster (its template, the cluster, its
// nodegroups and the OpenStack facts recorded at API time) into the Cluster
// API objects keel commits next to it. It is pure: no I/O, no clock, no
// randomness (names and keys are generated at API time and stored with the
// intent), and deterministic: the same input always gives the same bytes.
package compiler

import (
	"fmt"

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
	LabelClusterUUID = "cluster-uuid"
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
type Document struct {
	Path string
	Data []byte
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
	docs := []Document{{Path: "cluster.yaml", Data: clusterYAML}}
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
		docs = append(docs, Document{Path: lowerKind(gvk.Kind) + ".yaml", Data: data})
	}
	return withKustomization(docs), nil
}

// MarshalObject renders an object as YAML without the fields the API server
// owns (status, creationTimestamp), so that the bytes depend on intent only.
func MarshalObject(o client.Object) ([]byte, error) {
	return marshalClean(o)
}
