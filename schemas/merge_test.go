package schemas

import (
	"maps"
	"testing"
)

func TestMergeLabels(t *testing.T) {
	tmpl := map[string]string{"kube_tag": "v1.31.4", "auto_scaling_enabled": "false"}
	given := map[string]string{"auto_scaling_enabled": "true", "test": "x"}
	for _, tc := range []struct {
		name           string
		given          map[string]string
		present, merge bool
		want           map[string]string
	}{
		{"absent → template copy", nil, false, false, tmpl},
		{"absent with merge_labels → template copy", nil, false, true, tmpl},
		{"{} → template copy", map[string]string{}, true, false, tmpl},
		{"{} with merge_labels → template copy", map[string]string{}, true, true, tmpl},
		{"merge_labels → overlay", given, true, true, map[string]string{"kube_tag": "v1.31.4", "auto_scaling_enabled": "true", "test": "x"}},
		{"given → exactly given", given, true, false, given},
		{"no template labels", given, true, true, given},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := tmpl
			if tc.name == "no template labels" {
				parent = nil
			}
			got := MergeLabels(parent, tc.given, tc.present, tc.merge)
			if !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if got == nil {
				t.Error("nil map")
			}
			got["mutated"] = "y" // the result must not alias an input
			if _, ok := tmpl["mutated"]; ok {
				t.Fatal("result aliases the template labels")
			}
			if _, ok := given["mutated"]; ok {
				t.Fatal("result aliases the given labels")
			}
		})
	}
}

func TestLabelDiff(t *testing.T) {
	parent := map[string]string{"a": "1", "b": "2", "c": "3"}
	child := map[string]string{"a": "1", "b": "20", "d": "4"}
	o, a, s := LabelDiff(parent, child)
	if !maps.Equal(o, map[string]string{"b": "2"}) { // the parent's value
		t.Errorf("overridden %v", o)
	}
	if !maps.Equal(a, map[string]string{"d": "4"}) {
		t.Errorf("added %v", a)
	}
	if !maps.Equal(s, map[string]string{"c": "3"}) {
		t.Errorf("skipped %v", s)
	}
	o, a, s = LabelDiff(nil, nil)
	if o == nil || a == nil || s == nil || len(o)+len(a)+len(s) != 0 {
		t.Errorf("empty diff: %v %v %v", o, a, s)
	}
}
