package reconciler

import (
	"math"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/resource"
)

// objectOf is a kustomize resource as an unstructured object, read straight
// from its parsed YAML. kyaml's MarshalJSON prints the node as YAML again,
// parses that text and only then encodes JSON, which the Kubernetes
// machinery decodes once more: for a cluster's folder, whose addons
// ConfigMap is 570 KB of manifests, those round trips were most of the
// build, and builds are serialised (kustomizeMu), so a burst of 20 changes
// queued behind them (issue 30).
//
// The result is what the JSON round trip gives (whole numbers as int64,
// others as float64, timestamps as strings); any value JSON would alter or
// refuse (an integer beyond 2^53, NaN, invalid UTF-8, a non-string key)
// takes the round trip itself, as does an object without a kind, so that
// its error is the one it always was.
func objectOf(r *resource.Resource) (*unstructured.Unstructured, error) {
	if m, err := r.Map(); err == nil {
		if v, ok := jsonValue(m); ok {
			u := &unstructured.Unstructured{Object: v.(map[string]any)}
			if u.GetKind() != "" {
				return u, nil
			}
		}
	}
	data, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(data)
}

// maxExactInt is the largest magnitude below which every whole float64 is
// exactly an integer JSON would print and the decoder read as int64.
const maxExactInt = 1 << 53

// jsonValue converts a value decoded from YAML into what encoding it as
// JSON and decoding it with the Kubernetes machinery gives, in place; ok is
// false for a value that conversion would change in other ways or refuse.
func jsonValue(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool:
		return t, true
	case string:
		return t, utf8.ValidString(t)
	case int:
		return int64(t), true
	case int64:
		return t, true
	case float64:
		return jsonNumber(t)
	case map[string]any:
		for k, e := range t {
			c, ok := jsonValue(e)
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			t[k] = c
		}
		return t, true
	case []any:
		for i, e := range t {
			c, ok := jsonValue(e)
			if !ok {
				return nil, false
			}
			t[i] = c
		}
		return t, true
	}
	return nil, false
}

// jsonNumber: encoding/json prints a whole float64 without a fraction, and
// the decoder reads that as int64.
func jsonNumber(f float64) (any, bool) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return nil, false
	case f != math.Trunc(f):
		return f, true
	case math.Abs(f) < maxExactInt:
		return int64(f), true
	}
	return nil, false
}
