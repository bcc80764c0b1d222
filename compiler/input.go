package compiler

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
)

// KindFacts is the kind of a facts document: the OpenStack facts of one
// cluster, as `keel render -f` reads them next to the intent documents and
// as a cluster folder may hold them in FactsFile.
const KindFacts = "Facts"

// FactsFile is where a cluster folder records its facts (optional: without
// it, names stand for themselves, e.g. flavor_id is the flavor name).
const FactsFile = "facts.yaml"

// FactsDocument is the YAML form of Facts.
type FactsDocument struct {
	intent.TypeMeta `json:",inline"`
	Facts           `json:",inline"`
}

// ParseInput reads a multi-document YAML stream holding one cluster
// template, one cluster, its nodegroups and at most one Facts document, in
// any order, as stored in Git.
func ParseInput(data []byte) (Input, error) {
	var in Input
	var haveTemplate, haveCluster, haveFacts bool
	for i, doc := range splitDocuments(data) {
		var tm intent.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return in, fmt.Errorf("document %d: %w", i+1, err)
		}
		name := fmt.Sprintf("document %d", i+1)
		switch tm.Kind {
		case intent.KindClusterTemplate:
			if haveTemplate {
				return in, fmt.Errorf("%s: a second ClusterTemplate", name)
			}
			haveTemplate = true
			if err := intent.Decode(name, doc, tm.Kind, &in.Template); err != nil {
				return in, err
			}
		case intent.KindCluster:
			if haveCluster {
				return in, fmt.Errorf("%s: a second Cluster", name)
			}
			haveCluster = true
			if err := intent.Decode(name, doc, tm.Kind, &in.Cluster); err != nil {
				return in, err
			}
		case intent.KindNodeGroup:
			var ng intent.NodeGroup
			if err := intent.Decode(name, doc, tm.Kind, &ng); err != nil {
				return in, err
			}
			in.NodeGroups = append(in.NodeGroups, ng)
		case KindFacts:
			if haveFacts {
				return in, fmt.Errorf("%s: a second Facts document", name)
			}
			haveFacts = true
			f, err := ParseFacts(doc)
			if err != nil {
				return in, fmt.Errorf("%s: %w", name, err)
			}
			in.Facts = f
		default:
			return in, fmt.Errorf("%s: unexpected kind %q (want ClusterTemplate, Cluster, NodeGroup or Facts)", name, tm.Kind)
		}
	}
	if !haveTemplate || !haveCluster {
		return in, fmt.Errorf("the input needs a ClusterTemplate and a Cluster document")
	}
	return in, nil
}

// ParseFacts reads a Facts document (strictly: an unknown field is an error).
func ParseFacts(data []byte) (Facts, error) {
	var d FactsDocument
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		return Facts{}, err
	}
	if d.APIVersion != intent.APIVersion || d.Kind != KindFacts {
		return Facts{}, fmt.Errorf("expected apiVersion %s kind %s, found %q %q", intent.APIVersion, KindFacts, d.APIVersion, d.Kind)
	}
	return d.Facts, nil
}

// MarshalFacts renders a Facts document.
func MarshalFacts(f Facts) ([]byte, error) {
	return yaml.Marshal(FactsDocument{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: KindFacts}, Facts: f})
}

func splitDocuments(data []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(append([]byte("\n"), data...), []byte("\n---")) {
		// Drop the rest of the separator line (it may carry a comment).
		i := bytes.IndexByte(d, '\n')
		if i < 0 {
			continue
		}
		d = d[i+1:]
		if strings.TrimSpace(string(d)) != "" {
			out = append(out, d)
		}
	}
	return out
}

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
		b.Write(d.Data)
	}
	return b.Bytes()
}
