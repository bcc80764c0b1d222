package cilium

import (
	"bytes"
	"testing"

	"github.com/openkeel/keel/addons"
)

// The same cluster always renders the same bytes (no Helm-generated
// certificates, nothing read from the clock): the compiler commits them
// and `keel compile --check` compares.
func TestRenderIsDeterministic(t *testing.T) {
	for _, ui := range []bool{false, true} {
		p := params()
		p.HubbleUI = ui
		var out [2][]byte
		for i := range out {
			b, err := addons.Marshal(render(t, p))
			if err != nil {
				t.Fatal(err)
			}
			out[i] = b
		}
		if !bytes.Equal(out[0], out[1]) {
			t.Errorf("hubble UI %v: two renders differ", ui)
		}
		for _, o := range render(t, p) {
			if o.GetKind() == "Secret" {
				t.Errorf("hubble UI %v: Secret %s rendered (generated key material?)", ui, o.GetName())
			}
		}
	}
}
