package schemas

import (
	"maps"
	"slices"
	"strings"
)

// Normalized is a label value keel rewrote to its own form because Magnum
// accepted the original and keel's schema would refuse it.
type Normalized struct {
	Label, From, To string
}

// normalizers rewrite values Magnum accepted into the form keel's schema
// holds, each for one label:
//   - container_infra_prefix with trailing slashes: the Heat driver's
//     convention (it appended image names to the prefix as is, so
//     "registry.example.com/mirror/" was documented); keel's form has none.
var normalizers = map[string]func(string) string{
	LabelContainerInfraPrefix: func(v string) string { return strings.TrimRight(v, "/") },
}

// NormalizeLabels returns labels with every value Magnum accepted in
// another form rewritten to keel's (the API and keel import both apply it
// before validating), and what it rewrote. labels itself is not changed.
func NormalizeLabels(labels map[string]string) (map[string]string, []Normalized) {
	var out map[string]string
	var changed []Normalized
	for _, k := range sortedLabelKeys(labels) {
		fn, ok := normalizers[k]
		if !ok {
			continue
		}
		v := labels[k]
		if nv := fn(v); nv != v {
			if out == nil {
				out = maps.Clone(labels)
			}
			out[k] = nv
			changed = append(changed, Normalized{Label: k, From: v, To: nv})
		}
	}
	if out == nil {
		return labels, nil
	}
	return out, changed
}

func sortedLabelKeys(m map[string]string) []string {
	out := make([]string, 0, len(normalizers))
	for k := range normalizers {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
