package repo

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// sealRendered learns a document's kind without parsing it only where that
// cannot be wrong: whenever the quick reading answers, it agrees with the
// YAML parser, and it answers for what the compiler writes.
func TestTopLevelKindAgreesWithTheParser(t *testing.T) {
	for _, tc := range []struct {
		doc        string
		wantAnswer bool
	}{
		{"apiVersion: v1\ndata:\n  a.yaml: |\n    kind: Secret\n    apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", true},
		{"apiVersion: v1\ndata:\n  k: dg==\nkind: Secret\nmetadata:\n  name: x\ntype: Opaque\n", true},
		{"apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nspec: {}\n", true},
		{"apiVersion: v1\nkind: \"Secret\"\n", false},
		{"apiVersion: v1\nkind: Secret # a comment\n", false},
		{"{apiVersion: v1, kind: Secret}\n", false},
		{"---\napiVersion: v1\nkind: Secret\n", false},
		{"# kind: ConfigMap\napiVersion: v1\nkind: Secret\n", false},
		{"apiVersion: v1\nkind: ConfigMap\nkind: Secret\n", false},
		{"apiVersion: v1\n\"kind\": Secret\n", false},
		{"apiVersion: v1\nkind: !!str Secret\n", false},
		{"apiVersion: v1\n", false},
	} {
		apiVersion, kind, ok := topLevelKind([]byte(tc.doc))
		if ok != tc.wantAnswer {
			t.Errorf("%q: answered %v, want %v", tc.doc, ok, tc.wantAnswer)
		}
		if !ok {
			continue
		}
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(tc.doc), &head); err != nil {
			t.Fatalf("%q: %v", tc.doc, err)
		}
		if apiVersion != head.APIVersion || kind != head.Kind {
			t.Errorf("%q: read %s/%s, the parser %s/%s", tc.doc, apiVersion, kind, head.APIVersion, head.Kind)
		}
	}
}
