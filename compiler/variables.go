package compiler

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// The topology variables are the bulk of a Cluster. Typed, each value is
// JSON (apiextensionsv1.JSON) that the unstructured converter decodes
// again, which was the larger part of encoding a Cluster; they are kept
// instead as the unstructured values the converter would give and set into
// the converted Cluster (clusterContent). cluster_variables_fast_test.go
// holds the two paths to the same content.

// variable is one topology variable: its value as the compiler computed it
// (raw) and as the Cluster's unstructured content carries it (value).
type variable struct {
	name  string
	raw   any
	value any
}

func newVariable(name string, v any) variable {
	return variable{name: name, raw: v, value: unstructuredValue(v)}
}

// topologyVariables are the Cluster's variables and, for each of its
// machine deployments in order, their overrides.
type topologyVariables struct {
	cluster   []variable
	overrides [][]variable
}

// unstructuredValue is v as encoding/json writes it and the unstructured
// converter reads it back: integers as int64, lists as []any, objects as
// map[string]any. What it does not know (and strings JSON would alter) it
// sends through that round trip.
func unstructuredValue(v any) any {
	switch v := v.(type) {
	case nil, bool, int64:
		return v
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case string:
		if utf8.ValidString(v) {
			return v
		}
	case []string:
		if v == nil {
			return nil
		}
		out := make([]any, len(v))
		for i, s := range v {
			if !utf8.ValidString(s) {
				return jsonRoundTrip(v)
			}
			out[i] = s
		}
		return out
	case []any:
		if v == nil {
			return nil
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = unstructuredValue(x)
		}
		return out
	case map[string]any:
		if v == nil {
			return nil
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if !utf8.ValidString(k) {
				return jsonRoundTrip(v)
			}
			out[k] = unstructuredValue(x)
		}
		return out
	}
	return jsonRoundTrip(v)
}

// jsonRoundTrip is the general path of unstructuredValue.
func jsonRoundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // values are strings, bools, numbers, lists and maps of them
	}
	var out any
	if err := utiljson.Unmarshal(b, &out); err != nil {
		panic(fmt.Errorf("reading back %s: %w", b, err))
	}
	return out
}

// clusterContent is the unstructured content of cluster with its
// variables set.
func clusterContent(cluster *clusterv1.Cluster, tv topologyVariables) (map[string]any, error) {
	m, err := objectContent(cluster)
	if err != nil {
		return nil, err
	}
	spec, _ := m["spec"].(map[string]any)
	topology, ok := spec["topology"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cluster %s has no topology", cluster.Name)
	}
	if len(tv.cluster) > 0 {
		topology["variables"] = variableList(tv.cluster)
	}
	// A cluster of masters only has no workers at all.
	var mds []any
	if workers, ok := topology["workers"].(map[string]any); ok {
		mds, _ = workers["machineDeployments"].([]any)
	}
	if len(mds) != len(tv.overrides) {
		return nil, fmt.Errorf("cluster %s: %d machine deployments, %d override lists", cluster.Name, len(mds), len(tv.overrides))
	}
	for i, o := range tv.overrides {
		if len(o) > 0 {
			mds[i].(map[string]any)["variables"] = map[string]any{"overrides": variableList(o)}
		}
	}
	return m, nil
}

func variableList(vars []variable) []any {
	out := make([]any, len(vars))
	for i, v := range vars {
		out[i] = map[string]any{"name": v.name, "value": v.value}
	}
	return out
}
