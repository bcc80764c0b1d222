package compiler

import (
	"encoding/json"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
)

// The Cluster's variables, set as unstructured values into the converted
// Cluster, give the content the typed Cluster with JSON variables gives
// through the unstructured converter (the general path), for every
// realistic cluster, and for each of them with its masters only (no
// workers at all).
func TestClusterVariablesMatchConverter(t *testing.T) {
	inputs := testInputs(t)
	for name, in := range testInputs(t) {
		var masters []intent.NodeGroup
		for _, ng := range in.NodeGroups {
			if ng.Role == intent.RoleMaster {
				masters = append(masters, ng)
			}
		}
		in.NodeGroups = masters
		inputs[name+"/masters-only"] = in
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			cluster, tv, err := clusterObject(in)
			if err != nil {
				t.Fatal(err)
			}
			typed := cluster.DeepCopy()
			typed.Spec.Topology.Variables = rawVariables(t, tv.cluster)
			for i, o := range tv.overrides {
				typed.Spec.Topology.Workers.MachineDeployments[i].Variables.Overrides = rawVariables(t, o)
			}
			want, err := objectContent(typed)
			if err != nil {
				t.Fatal(err)
			}
			got, err := clusterContent(cluster, tv)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("content differs from the converter's:\n got %#v\nwant %#v", got["spec"], want["spec"])
			}
		})
	}
}

func rawVariables(t *testing.T, vars []variable) []clusterv1.ClusterVariable {
	var out []clusterv1.ClusterVariable
	for _, v := range vars {
		b, err := json.Marshal(v.raw)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, clusterv1.ClusterVariable{Name: v.name, Value: apiextensionsv1.JSON{Raw: b}})
	}
	return out
}

// unstructuredValue is the JSON round trip, also for the values it leaves
// to that round trip.
func TestUnstructuredValueIsJSONRoundTrip(t *testing.T) {
	for name, v := range map[string]any{
		"string":            "a<b>&c \"q\"",
		"invalid utf-8":     "a\xffb",
		"bool":              true,
		"int":               7,
		"int32":             int32(-3),
		"int64":             int64(1) << 60,
		"nil":               nil,
		"strings":           []string{"a", "b"},
		"no strings":        []string(nil),
		"empty strings":     []string{},
		"invalid in list":   []string{"a", "\xfe"},
		"list":              []any{"a", 1, map[string]any{"k": []string{"v"}}},
		"nil list":          []any(nil),
		"empty list":        []any{},
		"map":               map[string]any{"a": 1, "b": map[string]any{"c": false}, "d": []any{}},
		"nil map":           map[string]any(nil),
		"invalid key":       map[string]any{"\xff": 1},
		"float":             1.5,
		"string map":        map[string]string{"a": "b"},
		"uint":              uint(3),
		"integral float":    2.0,
		"nested invalid":    map[string]any{"a": []any{"\xc3"}},
		"html in map value": map[string]any{"a": "<>&"},
	} {
		t.Run(name, func(t *testing.T) {
			if got, want := unstructuredValue(v), jsonRoundTrip(v); !reflect.DeepEqual(got, want) {
				t.Errorf("unstructuredValue(%#v) = %#v, the JSON round trip gives %#v", v, got, want)
			}
		})
	}
}
