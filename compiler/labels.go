package compiler

import "github.com/openkeel/keel/schemas"

// catalogue is the label schema of a compilation: the input's (the
// repository's site narrowing), else the embedded one.
func (in *Input) catalogue() *schemas.Catalogue {
	if in.Catalogue != nil {
		return in.Catalogue
	}
	return schemas.Default()
}

// labels are the cluster's effective labels: those Compile computed, else
// computed here.
func (in *Input) labels() map[string]string {
	if in.effective != nil {
		return in.effective
	}
	return effectiveLabels(in.catalogue(), in.Cluster.Labels)
}

// effectiveLabels are the cluster's labels with the catalogue's defaults
// filled in: the compiler applies exactly the defaults the API and `cue vet`
// know, from the one schema and the same site file.
func effectiveLabels(cat *schemas.Catalogue, given map[string]string) map[string]string {
	return cat.WithDefaults(given)
}
