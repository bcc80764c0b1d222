package jsonpatch

import "testing"

// The patch and Python-literal parsers never panic and answer a client
// error for bad input; Apply leaves its input alone.

func FuzzJSONPatch(f *testing.F) {
	for _, s := range []string{
		`[{"op":"replace","path":"/labels","value":"{'a': 'b'}"}]`,
		`[{"op":"add","path":"/labels/x","value":"y"},{"op":"remove","path":"/labels/x"}]`,
		`[{"op":"replace","path":"/node_taints","value":"[{'key': 'k', 'effect': 'NoSchedule'}]"}]`,
		`[{"op":"add","path":"/node_taints/-","value":"x"}]`, `[{"op":"remove","path":"/name"}]`, `{}`, `[1]`,
	} {
		f.Add([]byte(s))
	}
	doc := map[string]any{"name": "n", "labels": map[string]any{"a": "b"}, "node_taints": []any{"t"}, "flavor": nil, "n": nil}
	rules := Rules{Literal: []string{"/labels", "/node_taints"}, Mandatory: []string{"/name"}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ops, err := Parse(raw, rules)
		if err != nil {
			if err.Status != 400 {
				t.Fatalf("status %d", err.Status)
			}
			return
		}
		out, err := Apply(doc, ops, rules)
		if err != nil && err.Status != 400 {
			t.Fatalf("status %d", err.Status)
		}
		if err == nil && out == nil {
			t.Fatal("nil document")
		}
		if doc["name"] != "n" || doc["labels"].(map[string]any)["a"] != "b" || len(doc["node_taints"].([]any)) != 1 {
			t.Fatal("Apply modified its input")
		}
	})
}

func FuzzPyLiteral(f *testing.F) {
	for _, s := range []string{`{'a': 'b'}`, `{"a": 1, 'b': -2.5e3, 'c': None}`, `[(1, 2), 'x' 'y']`, `{'a': true}`,
		`'\x41\u00e9'`, `{`, `"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parsePyLiteral(s)
		if err == nil {
			// What parsed renders back into something that parses to the same.
			again, err := parsePyLiteral(PyRepr(v))
			if err != nil || PyRepr(again) != PyRepr(v) {
				t.Fatalf("%q → %s → %v", s, PyRepr(v), err)
			}
		}
	})
}
