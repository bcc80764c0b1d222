package restapi

import (
	"net/http"
	"testing"
)

// Label keys and values that YAML would reinterpret (the merge key "<<",
// tags, NUL, booleans, numbers) are stored in Git exactly as sent: the
// object reads back the same, and later changes of it still work (a "<<"
// key once made every later PATCH of its template a 500).
func TestLabelsYAMLWouldReinterpretAreKeptExactly(t *testing.T) {
	a := newTestAPI(t)
	labels := map[string]string{
		"kube_tag": "v1.33.4", "<<": "<<", "!!binary": "!!binary", "nul": "a\x00b",
		"yes": "no", "123": "0x1F", "~": "null", "key: v": "- item",
	}
	r := a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{"name": "yamlish", "coe": "kubernetes", "image_id": "img", "labels": labels})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	uuid := r.json(t)["uuid"].(string)
	check := func(when string) {
		t.Helper()
		got := a.do(member, "", "GET", "/v1/clustertemplates/"+uuid, nil)
		if got.status != http.StatusOK {
			t.Fatalf("%s: GET %d %s", when, got.status, got.body)
		}
		back, _ := got.json(t)["labels"].(map[string]any)
		for k, v := range labels {
			if back[k] != v {
				t.Errorf("%s: label %q = %#v, want %q", when, k, back[k], v)
			}
		}
		if len(back) != len(labels) {
			t.Errorf("%s: %d labels read back, want %d: %v", when, len(back), len(labels), back)
		}
	}
	check("after create")
	p := a.do(member, "", "PATCH", "/v1/clustertemplates/"+uuid, []map[string]any{{"op": "replace", "path": "/name", "value": "yamlish2"}})
	if p.status != http.StatusOK {
		t.Fatalf("PATCH after create: %d %s", p.status, p.body)
	}
	check("after PATCH")
}
