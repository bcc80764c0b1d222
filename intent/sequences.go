package intent

import (
	"errors"
	"fmt"
	"io/fs"

	"sigs.k8s.io/yaml"
)

// SequencesPath holds the counters behind Magnum's integer ids, so that
// ids are part of the history and survive a rebuild of the read model. The
// API assigns the next id from it; keel import keeps Magnum's ids and
// raises the counters past them.
const SequencesPath = ".keel/sequences.yaml"

// Sequences are the last integer id given to each kind.
type Sequences struct {
	ClusterTemplates int64 `json:"cluster_templates"`
	Clusters         int64 `json:"clusters"`
	NodeGroups       int64 `json:"nodegroups"`
	Quotas           int64 `json:"quotas"`
}

// ReadSequences reads the counters of a tree (zero without the file).
func ReadSequences(t Tree) (*Sequences, error) {
	s := &Sequences{}
	data, err := t.ReadFile(SequencesPath)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%s: %w", SequencesPath, err)
	}
	return s, nil
}

// Marshal is the file's content.
func (s *Sequences) Marshal() ([]byte, error) { return yaml.Marshal(s) }
