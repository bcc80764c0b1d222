package intent

import "path"

// KindOf is the kind of the intent document stored at repository path p,
// or "" for anything else (rendered output, facts, secrets, sequences, the
// site file). keel vet, the pull-request checks and the API's validation
// classify paths with it, so that they agree on what is a document.
func KindOf(p string) string {
	switch {
	case IsTemplateFile(p):
		return KindClusterTemplate
	case IsNodeGroupFile(p):
		return KindNodeGroup
	case IsQuotaFile(p):
		return KindQuota
	case path.Base(p) == ClusterFile:
		if _, ok := IsClusterFile(p); ok {
			return KindCluster
		}
	}
	return ""
}
