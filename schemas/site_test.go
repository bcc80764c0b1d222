package schemas

import (
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
)

func TestSiteDefaultsAndAllowed(t *testing.T) {
	c, err := Default().WithSite([]byte(`package schemas
site: defaults: boot_volume_size: "50"
site: allowed: octavia_provider: ["ovn"]
site: defaults: octavia_provider: "ovn"
`))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := c.Lookup(LabelBootVolumeSize); l.Default != "50" {
		t.Errorf("site default not applied: %q", l.Default)
	}
	if l, _ := c.Lookup(LabelOctaviaProvider); !l.SiteNarrowed || len(l.Allowed) != 1 || l.Allowed[0] != "ovn" {
		t.Errorf("site narrowing not visible: %+v", l)
	}
	if n, _ := c.Int(nil, LabelBootVolumeSize); n != 50 {
		t.Errorf("Int default = %d", n)
	}
	if got := c.WithDefaults(nil)[LabelBootVolumeSize]; got != "50" {
		t.Errorf("WithDefaults = %q", got)
	}
	x := violationFor(t, validate(t, c, map[string]string{"octavia_provider": "amphora"}), "labels.octavia_provider")
	if !strings.Contains(x.Message, "site policy") || !strings.Contains(x.Message, "ovn") {
		t.Errorf("message %q", x.Message)
	}
	if vs := validate(t, c, map[string]string{"octavia_provider": "ovn"}); len(vs) != 0 {
		t.Errorf("allowed value refused: %v", vs)
	}
	// The base catalogue is untouched.
	if l, _ := Default().Lookup(LabelBootVolumeSize); l.Default != "0" {
		t.Errorf("WithSite modified the receiver: %q", l.Default)
	}
	if vs := validate(t, Default(), map[string]string{"octavia_provider": "amphora"}); len(vs) != 0 {
		t.Errorf("receiver narrowed: %v", vs)
	}
}

// Plain CUE narrows too, and a package clause is optional.
func TestSitePlainCUE(t *testing.T) {
	c, err := Default().WithSite([]byte(`#Labels: availability_zone?: "az1" | "az2"`))
	if err != nil {
		t.Fatal(err)
	}
	if vs := validate(t, c, map[string]string{"availability_zone": "nova"}); len(vs) != 1 {
		t.Errorf("plain CUE narrowing not applied: %v", vs)
	}
	doc := []byte("apiVersion: keel.openkeel.io/v1alpha1\nkind: NodeGroup\nuuid: 3fa85f64-5717-4562-b3fc-2c963f66afa6\nname: w\ncluster_id: 3fa85f64-5717-4562-b3fc-2c963f66afa7\nproject_id: p\nrole: worker\nnode_count: 1\nlabels:\n  availability_zone: nova\n")
	if vs := c.ValidateDocument(intent.KindNodeGroup, doc); len(vs) != 1 || vs[0].Field != "labels.availability_zone" {
		t.Errorf("document: %v", vs)
	}
}

func TestSiteStrict(t *testing.T) {
	c, err := Default().WithSite([]byte("site: strict: true\nsite: allow: [\"example.com/*\", \"test\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Strict() {
		t.Fatal("site.strict not read")
	}
	vs, ws := c.ValidateLabels(ScopeCluster, map[string]string{"foo": "x", "test": "x", "example.com/team": "y", "flannel_tag": "z"}, ValidateOptions{})
	if got := fields(vs); len(got) != 1 || got[0] != "labels.foo" {
		t.Errorf("strict violations %v", vs)
	}
	if !hasWarning(ws, "labels.test", "unknown") || !hasWarning(ws, "labels.flannel_tag", "ignored") {
		t.Errorf("warnings %v", ws)
	}
	// Strict asked for by the caller, with its own allow list.
	vs, _ = Default().ValidateLabels(ScopeCluster, map[string]string{"foo": "x", "corp.io/x": "y"}, ValidateOptions{Strict: true, Allow: []string{"corp.io/*"}})
	if got := fields(vs); len(got) != 1 || got[0] != "labels.foo" || !strings.Contains(vs[0].Message, "strict") {
		t.Errorf("option strict: %v", vs)
	}
}

func TestSiteErrors(t *testing.T) {
	for src, want := range map[string]string{
		`site: defaults: boot_volume_size: "-5"`:   "boot_volume_size",
		`site: defaults: no_such_label: "x"`:       "no_such_label",
		`site: allowed: calico_tag: ["v3.28.5"]`:   "calico_tag", // default v3.30.2 left outside
		`site: allowed: kube_tag: ["latest"]`:      "kube_tag",
		`site: allowed: kube_tag: ["v1.32.4"]`:     "kube_tag", // default left outside
		`site: strict: "yes"`:                      "bool",
		`package other`:                            "package",
		`site: {`:                                  "site file",
		`labels: boot_volume_size: type: "string"`: "type",
	} {
		_, err := Default().WithSite([]byte(src))
		if err == nil {
			t.Errorf("%s: accepted", src)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not mention %s", src, err, want)
		}
	}
}
