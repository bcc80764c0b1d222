package lightapi

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// Errors come back as metav1.Status, so client-go's apierrors predicates
// recognise them.
func TestErrorsAreKubernetesStatuses(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	rc := srv.clientset(t).CoreV1().RESTClient()
	body := func(s string) []byte { return []byte(s) }
	for name, tc := range map[string]struct {
		method, path string
		pt           types.PatchType
		body         []byte
		is           func(error) bool
	}{
		"get of a missing object":       {"GET", "/api/v1/namespaces/default/configmaps/none", "", nil, apierrors.IsNotFound},
		"unknown resource":              {"GET", "/apis/example.com/v1/widgets", "", nil, apierrors.IsNotFound},
		"unknown subresource":           {"GET", "/api/v1/namespaces/default/pods/p/log", "", nil, apierrors.IsNotFound},
		"create without a name":         {"POST", "/api/v1/namespaces/default/configmaps", "", body(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`), apierrors.IsInvalid},
		"create of another kind":        {"POST", "/api/v1/namespaces/default/configmaps", "", body(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`), apierrors.IsBadRequest},
		"create in a missing namespace": {"POST", "/api/v1/namespaces/none/configmaps", "", body(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`), apierrors.IsNotFound},
		"post to an object":             {"POST", "/api/v1/namespaces/default", "", body(`{}`), apierrors.IsMethodNotSupported},
		"patch of a missing object":     {"PATCH", "/api/v1/namespaces/default/configmaps/none", types.MergePatchType, body(`{}`), apierrors.IsNotFound},
		"unknown patch type":            {"PATCH", "/api/v1/namespaces/default", "application/x-nonsense", body(`{}`), apierrors.IsUnsupportedMediaType},
	} {
		t.Run(name, func(t *testing.T) {
			req := rc.Verb(tc.method).AbsPath(tc.path)
			if tc.pt != "" {
				req.SetHeader("Content-Type", string(tc.pt))
			}
			if tc.body != nil {
				req.Body(tc.body)
			}
			if err := req.Do(ctx).Error(); !tc.is(err) {
				t.Fatalf("got %v", err)
			}
		})
	}
}
