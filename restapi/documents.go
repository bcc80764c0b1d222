package restapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/schemas"
)

// validateDocuments checks every intent document a commit writes against the
// CUE definitions `cue vet` and `keel vet` use (#ClusterTemplate, #Cluster,
// #NodeGroup, #Quota), narrowed by the site file of the tree the commit is
// made on. It runs on the write path of every mutation (Server.commit), so a
// rule written once in CUE refuses the request with a 400 naming the
// document, the field and what is allowed, and nothing is committed.
//
// A document the commit rewrites byte for byte is not checked: it is not
// being written, and an old document a later site.cue narrows (which `keel
// vet` reports) must not block unrelated changes to its cluster.
func (s *Server) validateDocuments(sn *gitstore.Snapshot, changes []gitstore.Change) error {
	var written []gitstore.Change
	for _, ch := range changes {
		if kind, _ := documentKind(ch.Path); ch.Delete || kind == "" {
			continue
		}
		old, err := sn.ReadFile(ch.Path)
		if err != nil && !errors.Is(err, gitstore.ErrNotFound) {
			return err
		}
		if err != nil || !bytes.Equal(old, ch.Data) {
			written = append(written, ch)
		}
	}
	if len(written) == 0 {
		return nil
	}
	cat, err := s.catalogueOf(sn)
	if err != nil {
		return err
	}
	return checkDocuments(cat, written)
}

// checkDocuments validates intent documents with cat: one 400 naming each
// invalid document, its fields and what they allow.
//
// A document's labels are checked apart from the rest, once per distinct
// label set: #TemplateLabels, #ClusterLabels and #NodeGroupLabels are all
// #Labels, whose evaluation is most of the cost, and a cluster's nodegroups
// carry its label set (BenchmarkValidateDocuments).
func checkDocuments(cat *schemas.Catalogue, changes []gitstore.Change) error {
	var msgs []string
	labelChecks := map[string][]schemas.Violation{}
	for _, ch := range changes {
		kind, what := documentKind(ch.Path)
		// As JSON, decoded by the YAML reader intent uses: CUE's YAML
		// decoder reads a quoted "<<" key as a merge key.
		data, err := yaml.YAMLToJSON(ch.Data)
		if err != nil {
			return err
		}
		var labelVs []schemas.Violation
		if rest, labels, ok := splitLabels(data); ok {
			key := string(mustJSON(labels))
			vs, seen := labelChecks[key]
			if !seen {
				vs, _ = cat.ValidateLabels(kindScopes[kind], labels, schemas.ValidateOptions{})
				labelChecks[key] = vs
			}
			data, labelVs = rest, vs
		}
		vs := append(cat.ValidateDocument(kind, data), labelVs...)
		if len(vs) == 0 {
			continue
		}
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = v.String()
		}
		msgs = append(msgs, "Invalid "+what+": "+strings.Join(parts, "; "))
	}
	if len(msgs) == 0 {
		return nil
	}
	return apierr.BadRequest("%s", strings.Join(msgs, ". "))
}

var kindScopes = map[string]schemas.Scope{
	intent.KindClusterTemplate: schemas.ScopeTemplate,
	intent.KindCluster:         schemas.ScopeCluster,
	intent.KindNodeGroup:       schemas.ScopeNodeGroup,
}

// splitLabels takes a JSON document's label set (a map of strings) out of
// it; ok is false when there is none or it is not one, and the document is
// then validated whole.
func splitLabels(doc []byte) (rest []byte, labels map[string]string, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil || m["labels"] == nil {
		return nil, nil, false
	}
	if json.Unmarshal(m["labels"], &labels) != nil || labels == nil {
		return nil, nil, false
	}
	delete(m, "labels")
	return mustJSON(m), labels, true
}

// mustJSON marshals a value that always marshals (decoded JSON).
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// documentKind classifies a repository path: the schema kind of the intent
// document stored there and how the error names it ("nodegroup
// default-master"), or "" for anything else (rendered output, facts,
// secrets, sequences).
func documentKind(p string) (kind, what string) {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	switch kind = intent.KindOf(p); kind {
	case intent.KindClusterTemplate:
		return kind, "cluster template " + base
	case intent.KindNodeGroup:
		return kind, "nodegroup " + base
	case intent.KindQuota:
		return kind, "quota of project " + base
	case intent.KindCluster:
		return kind, "cluster " + path.Base(path.Dir(p))
	}
	return "", ""
}

// catalogueOf is the schema a commit onto sn is validated with:
// Config.Catalogue (tests), else the embedded schema narrowed by sn's
// site.cue, the one repo.WriteCluster renders the commit with. Catalogues
// are compiled once per site file (schemas.SiteCatalogue caches them).
func (s *Server) catalogueOf(sn *gitstore.Snapshot) (*schemas.Catalogue, error) {
	if s.cfg.Catalogue != nil {
		return s.cfg.Catalogue, nil
	}
	cat, err := schemas.SiteCatalogue(sn)
	if err != nil {
		return nil, siteFileError(err)
	}
	return cat, nil
}
