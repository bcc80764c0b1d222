package schemas

import (
	"strings"
	"testing"
)

// fields returns the Field of each violation, for compact assertions.
func fields(vs []Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Field
	}
	return out
}

// violationFor returns the violation on field, failing the test when absent.
func violationFor(t *testing.T, vs []Violation, field string) Violation {
	t.Helper()
	for _, v := range vs {
		if v.Field == field {
			return v
		}
	}
	t.Fatalf("no violation on %s; got %v", field, vs)
	return Violation{}
}

func hasWarning(ws []Warning, field, substr string) bool {
	for _, w := range ws {
		if w.Field == field && strings.Contains(w.Message, substr) {
			return true
		}
	}
	return false
}

func validate(t *testing.T, c *Catalogue, labels map[string]string) []Violation {
	t.Helper()
	vs, _ := c.ValidateLabels(ScopeCluster, labels, ValidateOptions{})
	return vs
}
