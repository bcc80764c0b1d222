package clusterclass

import (
	"strings"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// Inputs is what a feature computes its variables' values from: one
// cluster's documents, its effective labels (the catalogue's defaults
// filled in) and the catalogue that reads them. Features only read it.
type Inputs struct {
	*intent.Documents
	// Master is the cluster's control-plane nodegroup.
	Master intent.NodeGroup
	// Labels are the cluster's effective labels.
	Labels    map[string]string
	Catalogue *schemas.Catalogue
}

// Bool reads a boolean label.
func (in *Inputs) Bool(name string) (bool, error) { return in.Catalogue.Bool(in.Labels, name) }

// Int reads an integer label; 0 when it is empty.
func (in *Inputs) Int(name string) (int64, error) {
	if in.Labels[name] == "" {
		return 0, nil
	}
	return in.Catalogue.Int(in.Labels, name)
}

// List reads a comma-separated label, dropping empty items.
func (in *Inputs) List(name string) []string { return splitList(in.Labels[name]) }

// Values are the cluster-level values of every feature's variables, which
// the compiler sets explicitly on each Cluster, so that the committed
// Cluster shows the whole intent and does not depend on the class
// defaults.
func Values(in *Inputs) (map[string]any, error) {
	vars := make(map[string]any, 48)
	for _, f := range valueFeatures() {
		if f.Values == nil {
			continue
		}
		vs, err := f.Values(in)
		if err != nil {
			return nil, err
		}
		for k, v := range vs {
			vars[k] = v
		}
	}
	return vars, nil
}

// splitList splits a comma-separated value, dropping empty items.
func splitList(s string) []string {
	out := []string{}
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
