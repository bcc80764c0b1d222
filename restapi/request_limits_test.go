package restapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Every request's size is bounded before it is parsed or validated: an
// oversized body, too many or too long labels and too long patches get a
// Magnum-format error naming the limit, and nothing is committed.
func TestRequestLimits(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "limits", nil)
	manyLabels := map[string]string{"kube_tag": "v1.33.4"}
	for i := 0; len(manyLabels) <= MaxLabels; i++ {
		manyLabels[fmt.Sprintf("custom_%d", i)] = "x"
	}
	templateBody := func(labels map[string]string) map[string]any {
		return map[string]any{"coe": "kubernetes", "image_id": "img", "labels": labels}
	}
	var ops []map[string]any
	for i := 0; i <= MaxPatchOps; i++ {
		ops = append(ops, map[string]any{"op": "replace", "path": "/name", "value": fmt.Sprint("n", i)})
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		status             int
		want               string
	}{
		{"body too large", "POST", "/v1/clustertemplates", `{"coe":"kubernetes","image_id":"` + strings.Repeat("x", MaxBodyBytes) + `"}`,
			http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: at most %d bytes", MaxBodyBytes)},
		{"too many labels", "POST", "/v1/clustertemplates", templateBody(manyLabels),
			http.StatusBadRequest, fmt.Sprintf("Invalid labels: %d labels, at most %d are allowed", MaxLabels+1, MaxLabels)},
		{"label name too long", "POST", "/v1/clustertemplates", templateBody(map[string]string{"kube_tag": "v1.33.4", strings.Repeat("k", 1000): "x"}),
			http.StatusBadRequest, "is 1000 characters long, at most 128 are allowed for a label name"},
		{"label value too long", "POST", "/v1/clustertemplates", templateBody(map[string]string{"kube_tag": "v1.33.4", "custom": strings.Repeat("v", MaxLabelValueLen+1)}),
			http.StatusBadRequest, "the value of label custom is 4097 characters long, at most 4096 are allowed"},
		{"patch too long", "PATCH", "/v1/clustertemplates/" + tmpl.UUID, ops,
			http.StatusBadRequest, fmt.Sprintf("patch: %d operations, at most %d are accepted", MaxPatchOps+1, MaxPatchOps)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(member, "", tc.method, tc.path, tc.body), tc.status, tc.want)
			})
		})
	}
}
