package compiler

import (
	"maps"
	"testing"

	"golang.org/x/mod/semver"

	occm "github.com/openkeel/keel/addons/openstack-cloud-controller-manager"
	"github.com/openkeel/keel/schemas"
)

// A cluster without kube_tag (one written to Git by hand: the API pins the
// default into the labels) compiles to the effective kube_tag default, the
// site's when site.cue names one; the catalogue's default is a minor with an
// OCCM release of its own, so the default cluster runs a matching OCCM.
func TestKubeTagDefault(t *testing.T) {
	catalogueDefault := schemas.Default().String(nil, schemas.LabelKubeTag)
	if tag := occm.Tag("", catalogueDefault); semver.MajorMinor(tag) != semver.MajorMinor(catalogueDefault) {
		t.Errorf("the kube_tag default %s gets OCCM %s, a release of another minor: move the default or the OCCM table together", catalogueDefault, tag)
	}
	site, err := schemas.Default().WithSite([]byte(`site: defaults: kube_tag: "v1.34.4"`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cat  *schemas.Catalogue
		want string
	}{
		{"catalogue default", nil, catalogueDefault},
		{"site default", site, "v1.34.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := testInputs(t)["calico-basic"]
			in.Catalogue = tc.cat
			in.Cluster.Labels = maps.Clone(in.Cluster.Labels)
			delete(in.Cluster.Labels, schemas.LabelKubeTag)
			if got := renderedCluster(t, in).Spec.Topology.Version; got != tc.want {
				t.Errorf("topology.version = %q, want %q", got, tc.want)
			}
		})
	}
}
