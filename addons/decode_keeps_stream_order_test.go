package addons

import (
	"fmt"
	"strings"
	"testing"
)

// The order of a manifest is the order Cluster API applies it in (CRDs
// before what uses them), and the rendered bytes must not vary between
// runs: Decode keeps the stream's order.
func TestDecodeKeepsStreamOrder(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "---\n# comment %d\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%02d\n", i, i)
	}
	b.WriteString("---\n\n---\n")
	for range 5 {
		objs, err := Decode(b.String())
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 40 {
			t.Fatalf("got %d objects, want 40", len(objs))
		}
		for i, o := range objs {
			if want := fmt.Sprintf("cm-%02d", i); o.GetName() != want {
				t.Fatalf("object %d is %s, want %s", i, o.GetName(), want)
			}
		}
	}
}
