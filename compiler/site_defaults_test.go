package compiler

import (
	"bytes"
	"testing"

	"github.com/openkeel/keel/schemas"
)

// The compiler fills in the defaults of the catalogue it is given (the
// repository's site.cue), so a site default reaches the rendered topology;
// without one (nil or the embedded schema) the output is the golden's.
func TestSiteDefaultsReachTheRenderedOutput(t *testing.T) {
	in := testInputs(t)["calico-basic"]
	site, err := schemas.Default().WithSite([]byte(`
site: defaults: boot_volume_size: "50"
site: allowed: octavia_provider: ["ovn"]
site: defaults: octavia_provider: "ovn"
`))
	if err != nil {
		t.Fatal(err)
	}
	vars := func(in Input) map[string]string {
		out := map[string]string{}
		for _, v := range renderedCluster(t, in).Spec.Topology.Variables {
			out[v.Name] = string(v.Value.Raw)
		}
		return out
	}

	plain := vars(in)
	if plain["bootVolume"] != `{"size":0,"type":""}` || plain["apiServerLoadBalancer"] != `{"enabled":true}` {
		t.Fatalf("without a site: bootVolume %s, apiServerLoadBalancer %s", plain["bootVolume"], plain["apiServerLoadBalancer"])
	}

	withSite := in
	withSite.Catalogue = site
	got := vars(withSite)
	if got["bootVolume"] != `{"size":50,"type":""}` {
		t.Errorf("bootVolume with site default 50 = %s", got["bootVolume"])
	}
	if got["apiServerLoadBalancer"] != `{"enabled":true,"provider":"ovn"}` {
		t.Errorf("apiServerLoadBalancer with site default ovn = %s", got["apiServerLoadBalancer"])
	}
	// A label the cluster sets wins over the site default.
	withSite.Cluster.Labels = map[string]string{"kube_tag": "v1.33.1", "boot_volume_size": "20"}
	if got := vars(withSite)["bootVolume"]; got != `{"size":20,"type":""}` {
		t.Errorf("bootVolume with the label 20 = %s", got)
	}

	// The embedded schema passed explicitly renders what nil does.
	a, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	explicit := in
	explicit.Catalogue = schemas.Default()
	b, err := Compile(explicit)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(MarshalDocuments(a), MarshalDocuments(b)) {
		t.Error("Catalogue: schemas.Default() renders differently from nil")
	}
}
