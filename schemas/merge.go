package schemas

import "maps"

// MergeLabels computes a cluster's labels at create time from its template's
// (or a nodegroup's from its cluster's), with Magnum 2026.2's rules:
//   - labels absent or {} → a copy of the template's labels;
//   - given with merge_labels → the template's labels overlaid by the given;
//   - otherwise exactly the given labels.
//
// givenPresent says whether the request carried labels at all. The result is
// a new map; the inputs are not modified.
func MergeLabels(template, given map[string]string, givenPresent, mergeLabels bool) map[string]string {
	out := map[string]string{}
	switch {
	case !givenPresent || len(given) == 0:
		maps.Copy(out, template)
	case mergeLabels:
		maps.Copy(out, template)
		maps.Copy(out, given)
	default:
		maps.Copy(out, given)
	}
	return out
}

// LabelDiff compares a child's labels with its parent's (cluster vs template,
// nodegroup vs cluster) the way Magnum's API views do:
//   - overridden: keys in both with different values, with the parent's value;
//   - added: keys only the child has, with the child's value;
//   - skipped: keys only the parent has, with the parent's value.
//
// The maps are never nil.
func LabelDiff(parent, child map[string]string) (overridden, added, skipped map[string]string) {
	overridden, added, skipped = map[string]string{}, map[string]string{}, map[string]string{}
	for k, pv := range parent {
		cv, ok := child[k]
		switch {
		case !ok:
			skipped[k] = pv
		case cv != pv:
			overridden[k] = pv
		}
	}
	for k, cv := range child {
		if _, ok := parent[k]; !ok {
			added[k] = cv
		}
	}
	return overridden, added, skipped
}
