package reconciler

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/provider"
)

// viaJSON is how the reconciler read kustomize's output before objectOf:
// kyaml's MarshalJSON and the Kubernetes JSON decoder.
func viaJSON(data []byte) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(data)
}

// sameAsJSON parses doc as kustomize does and checks that objectOf gives
// each resource exactly what the JSON round trip gives, error for error.
func sameAsJSON(t *testing.T, doc string) {
	t.Helper()
	rs, err := provider.NewDefaultDepProvider().GetResourceFactory().SliceFromBytes([]byte(doc))
	if err != nil {
		return // kustomize refuses it before either conversion runs
	}
	for _, r := range rs {
		data, jerr := r.MarshalJSON()
		var want *unstructured.Unstructured
		if jerr == nil {
			want, jerr = viaJSON(data)
		}
		got, gerr := objectOf(r)
		if (jerr == nil) != (gerr == nil) {
			t.Fatalf("%q: JSON round trip error %v, objectOf error %v", doc, jerr, gerr)
		}
		if jerr == nil && !reflect.DeepEqual(got.Object, want.Object) {
			t.Fatalf("%q:\nobjectOf %#v\nJSON     %#v", doc, got.Object, want.Object)
		}
	}
}

var objectDocs = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: |\n    line\n    <b>&amp;</b>\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  i: 3\n  neg: -7\n  f: 1.5\n  whole: 2.0\n  exp: 1e3\n  tiny: 1e-9\n  big: 9007199254740993\n  huge: 1e300\n  u: 18446744073709551615\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  t: 2001-12-14t21:59:43.10-05:00\n  d: 2002-12-14\n  b: yes\n  on: on\n  n: ~\n  e: \"\"\n  s: !!str 12\n  hex: 0x1F\n  oct: 0o17\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  inf: .inf\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  nan: .nan\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  base: &a {x: 1, y: [1, 2.5, null]}\n  other:\n    <<: *a\n    z: true\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  m:\n    1: one\n    true: yes\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  bin: !!binary gIGC\n",
	"apiVersion: v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n  list: [[], {}, [[1]], -0.0, 0.0]\n",
	"apiVersion: v1\nkind: \"\"\nmetadata:\n  name: n\n",
	"apiVersion: v1\nkind: [a]\nmetadata:\n  name: n\n",
	"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: BList\nitems:\n- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n    x: 1.0\n",
}

func TestBuildReadsObjectsAsJSONWould(t *testing.T) {
	for _, doc := range objectDocs {
		sameAsJSON(t, doc)
	}
}

func FuzzObjectOfAsJSON(f *testing.F) {
	for _, doc := range objectDocs {
		f.Add(doc)
	}
	f.Fuzz(sameAsJSON)
}
