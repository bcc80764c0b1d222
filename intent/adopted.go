package intent

import (
	"fmt"
	"strings"
)

// AnnotationAdoptedFieldManagers, on the Cluster of an adopted cluster,
// names the driver's field managers (FormatFieldManagers): the reconciler
// hands their fields over to keel when it applies, so that what keel
// stops rendering (the driver's variables, after the upgrade onto keel's
// ClusterClass) leaves the object instead of staying the driver's.
const AnnotationAdoptedFieldManagers = "keel.openkeel.io/adopted-field-managers"

// Verdict says what the adoption does to what ran, as `keel import --plan`
// and `keel plan` show it.
func (a *Adopted) Verdict() string {
	s := "adopted from " + a.From + " on ClusterClass " + a.Class + ", "
	if len(a.Changes) == 0 {
		return s + "no machine change"
	}
	return s + "changes what runs: " + strings.Join(a.Changes, "; ")
}

// LabelClusterUUID ties a Magnum cluster's Cluster API objects to it, and
// selects its ClusterResourceSets: keel's and magnum-cluster-api's alike.
const LabelClusterUUID = "cluster-uuid"

// FieldManager is a Kubernetes field manager and its operation (Apply or
// Update), as metadata.managedFields records them.
type FieldManager struct {
	Name      string `json:"name"`
	Operation string `json:"operation"`
}

// FormatFieldManagers is the annotation's form: "Operation:name,...".
func FormatFieldManagers(ms []FieldManager) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.Operation + ":" + m.Name
	}
	return strings.Join(parts, ",")
}

// ParseFieldManagers reads FormatFieldManagers' form.
func ParseFieldManagers(s string) ([]FieldManager, error) {
	if s == "" {
		return nil, nil
	}
	var out []FieldManager
	for _, part := range strings.Split(s, ",") {
		op, name, ok := strings.Cut(part, ":")
		if !ok || name == "" || (op != "Apply" && op != "Update") {
			return nil, fmt.Errorf("field manager %q: want Apply:<name> or Update:<name>", part)
		}
		out = append(out, FieldManager{Name: name, Operation: op})
	}
	return out, nil
}
