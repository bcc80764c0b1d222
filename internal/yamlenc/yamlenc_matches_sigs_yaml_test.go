package yamlenc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Whatever Marshal accepts, it writes exactly as sigs.k8s.io/yaml does.
func FuzzMarshalMatchesSigsYAML(f *testing.F) {
	// Words are separated by 0xff, which is not UTF-8 and so never
	// needed inside one.
	f.Add([]byte(strings.Join([]string{"", "a", "yes", "0x1F", "10.0.0.0/8", "-a", "- a", "a:b", "a:", "<<", "日本", "a b", "1e3", "2024-01-02", "_x", "Z", "k8s", "a,b", ",a", "8.8.8.8", "80%", "--x=y", "TLS_A,TLS_B"}, "\xff")), uint64(1))
	f.Fuzz(func(t *testing.T, words []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 7))
		strs := bytes.Split(words, []byte{0xff})
		pick := func() string { return string(strs[r.IntN(len(strs))]) }
		m := randomMap(r, pick, 3)
		check(t, m)
	})
}

func randomMap(r *rand.Rand, pick func() string, depth int) map[string]any {
	m := map[string]any{}
	for range r.IntN(5) {
		m[pick()] = randomValue(r, pick, depth-1)
	}
	return m
}

func randomValue(r *rand.Rand, pick func() string, depth int) any {
	switch n := r.IntN(9); {
	case n < 3 || depth <= 0:
		return pick()
	case n == 3:
		return int64(r.IntN(2000) - 1000)
	case n == 4:
		return r.IntN(2) == 0
	case n == 5:
		return nil
	case n == 6:
		s := []any{}
		for range r.IntN(4) {
			s = append(s, randomValue(r, pick, depth-1))
		}
		return s
	default:
		return randomMap(r, pick, depth-1)
	}
}

func check(t *testing.T, m map[string]any) {
	t.Helper()
	got, ok := Marshal(m)
	if !ok {
		return
	}
	want, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		j, _ := json.Marshal(m)
		t.Fatalf("for %s\ngot:\n%s\nwant:\n%s", j, got, want)
	}
}

// Every object of the compiler's golden files (real clusters' objects) is
// written the same, and most take the fast path (else it is no use).
func TestMarshalMatchesSigsYAMLOnRenderedObjects(t *testing.T) {
	files, _ := filepath.Glob("../../compiler/testdata/*.golden.yaml")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	fast, all := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			var m map[string]any
			if err := yaml.Unmarshal(doc, &m); err != nil || m == nil {
				continue
			}
			m = ints(m).(map[string]any)
			all++
			if _, ok := Marshal(m); ok {
				fast++
			}
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(f), i), func(t *testing.T) { check(t, m) })
		}
	}
	if fast*2 < all {
		t.Fatalf("only %d of %d rendered objects take the fast path", fast, all)
	}
	t.Logf("%d of %d objects on the fast path", fast, all)
}

// ints turns the JSON decoder's whole floats back into the int64s that
// unstructured objects hold.
func ints(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = ints(x)
		}
	case []any:
		for i, x := range v {
			v[i] = ints(x)
		}
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	}
	return v
}
