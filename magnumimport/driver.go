package magnumimport

import (
	"strings"

	"github.com/openkeel/keel/intent"
)

// Drivers as the import names them in a read-only record.
const (
	DriverHeat       = "heat"
	DriverClusterAPI = "cluster-api"
	DriverUnknown    = ""
)

// notAdoptedYet ends the reason of a Cluster API driver's cluster imported
// without --adopt; Adopt replaces it with why it could not adopt one.
const notAdoptedYet = "keel did not adopt its Cluster API objects (keel import --adopt does)"

// heatDistros are the cluster_distro values only Magnum's Heat drivers
// served (k8s_fedora_coreos_v1, and the removed fedora-atomic and coreos
// ones).
var heatDistros = []string{"fedora-coreos", "fedora-atomic", "coreos"}

// classify tells which Magnum driver made a cluster, from its template
// (the driver column where the schema has it, else cluster_distro) and
// its stack_id (a Heat stack's UUID, or kube-xxxxx as the Cluster API
// drivers name their Clusters), and why keel imports it read-only.
func classify(tmpl row, stackID string) (driver, why string) {
	x := &reader{r: tmpl}
	named := strings.ToLower(x.str("driver"))
	distro := strings.ToLower(x.str("cluster_distro"))
	switch {
	case strings.Contains(named, "capi") || strings.Contains(named, "cluster_api"):
		return DriverClusterAPI, "made by the Cluster API driver " + named + "; " + notAdoptedYet
	case named != "":
		return DriverHeat, "made by Magnum's driver " + named + ", which keel cannot adopt"
	case hasPrefixAny(distro, heatDistros):
		return DriverHeat, "made by Magnum's Heat driver (cluster_distro " + distro + "), which keel cannot adopt"
	case intent.ValidStackID(stackID):
		return DriverClusterAPI, "made by a Cluster API driver (stack_id " + stackID + "); " + notAdoptedYet
	case looksLikeUUID(stackID):
		return DriverHeat, "made by Magnum's Heat driver (stack " + stackID + "), which keel cannot adopt"
	}
	if tmpl == nil {
		return DriverUnknown, "its cluster template is not in Magnum's database, so keel cannot tell which driver made it"
	}
	return DriverUnknown, "made by a Magnum driver keel does not know (cluster_distro " + quoteEmpty(distro) + ")"
}

func readOnlyReason(why, magnum string) string {
	s := "Imported from Magnum as a read-only record: " + why + "."
	if strings.TrimSpace(magnum) != "" {
		s += " Magnum's status_reason: " + magnum
	}
	return s
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func looksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if r != '-' {
				return false
			}
		} else if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

func quoteEmpty(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}
