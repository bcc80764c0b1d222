package restapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
)

// gophercloud's acceptance sequence: PATCH replace two flags with string
// booleans and add a label → 200 with the full template, one commit.
func TestTemplatePatchThroughGophercloud(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", map[string]string{"kube_tag": "v1.33.4", "test": "x"})
	before := a.commitCount()
	got, err := clustertemplates.Update(context.Background(), a.client(member, ""), tm.UUID, []clustertemplates.UpdateOpts{
		{Op: clustertemplates.ReplaceOp, Path: "/master_lb_enabled", Value: "true"},
		{Op: clustertemplates.ReplaceOp, Path: "/registry_enabled", Value: "false"},
		{Op: clustertemplates.AddOp, Path: "/labels/test", Value: "test"},
		{Op: clustertemplates.AddOp, Path: "/keypair_id", Value: "kp"},
		{Op: clustertemplates.RemoveOp, Path: "/master_flavor_id"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if !got.MasterLBEnabled || got.Labels["test"] != "test" || got.KeyPairID != "kp" || got.MasterFlavorID != "" {
		t.Fatalf("patched template: %+v", got)
	}
	if n := a.commitCount(); n != before+1 {
		t.Fatalf("%d commits, want 1", n-before)
	}
	if msg := a.lastCommit(); !strings.HasPrefix(msg, "clustertemplate t1: update keypair_id, labels, master_flavor_id, master_lb_enabled") ||
		!strings.Contains(msg, "Keel-Operation: update") {
		t.Fatalf("commit message:\n%s", msg)
	}
	again, err := clustertemplates.Get(context.Background(), a.client(member, ""), tm.UUID).Extract()
	if err != nil || !again.MasterLBEnabled || again.UpdatedAt.IsZero() {
		t.Fatalf("GET after PATCH: %+v %v", again, err)
	}
	// The same patch again changes nothing and commits nothing.
	a.expectNoCommit(func() {
		r := a.do(member, "", "PATCH", "/v1/clustertemplates/t1", `[{"op":"replace","path":"/master_lb_enabled","value":"yes"}]`)
		if r.status != http.StatusOK {
			t.Fatalf("no-op patch: %d %s", r.status, r.body)
		}
	})
}

func TestTemplatePatchLabelsLiteral(t *testing.T) {
	a := newTestAPI(t)
	a.template(member, "t1", nil)
	r := a.do(member, "", "PATCH", "/v1/clustertemplates/t1",
		`[{"op":"replace","path":"/labels","value":"{'kube_tag': 'v1.34.1', 'flag': True, 'n': 3}"}]`)
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	labels := r.json(t)["labels"].(map[string]any)
	if labels["kube_tag"] != "v1.34.1" || labels["flag"] != "True" || labels["n"] != "3" {
		t.Fatalf("labels %v", labels)
	}
}

// Every refused patch is a 400 (or 403) with Magnum's message, and commits
// nothing.
func TestTemplatePatchErrors(t *testing.T) {
	a := newTestAPI(t)
	a.template(member, "t1", nil)
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"internal", `[{"op":"replace","path":"/uuid","value":"x"}]`, 400, "'/uuid' is an internal attribute and can not be updated"},
		{"mandatory", `[{"op":"remove","path":"/image_id"}]`, 400, "'/image_id' is a mandatory attribute and can not be removed"},
		{"bad op", `[{"op":"move","path":"/name","value":"x"}]`, 400, "Value should be one of: add, replace, remove"},
		{"bad path", `[{"op":"replace","path":"/labels/a.b","value":"x"}]`, 400, "Value should match the pattern"},
		{"object value", `[{"op":"replace","path":"/labels","value":{"a":"b"}}]`, 400, "Wrong type"},
		{"no value", `[{"op":"replace","path":"/name"}]`, 400, "'add' and 'replace' operations needs value"},
		{"new root attr", `[{"op":"add","path":"/color","value":"red"}]`, 400, "Adding a new attribute /color to the root of the resource is not allowed."},
		{"add existing", `[{"op":"add","path":"/name","value":"x"}]`, 400, "The attribute /name has existed, please use 'replace' operation instead."},
		{"json literal", `[{"op":"replace","path":"/labels","value":"{\"a\": true}"}]`, 400, "Couldn't apply patch"},
		{"replace missing", `[{"op":"replace","path":"/labels/nope","value":"x"}]`, 400, "can't replace a non-existent object 'nope'"},
		{"string int", `[{"op":"replace","path":"/docker_volume_size","value":"5"}]`, 400, "Invalid input for field/attribute docker_volume_size"},
		{"bad bool", `[{"op":"replace","path":"/tls_disabled","value":"maybe"}]`, 400, "Invalid input for field/attribute tls_disabled"},
		{"bad driver", `[{"op":"replace","path":"/network_driver","value":"flannel"}]`, 400, "Network driver type flannel is not supported"},
		{"bad label", `[{"op":"add","path":"/labels/kube_tag","value":"1.33"}]`, 400, "Invalid labels"},
		{"publish", `[{"op":"replace","path":"/public","value":"true"}]`, 403, "Not authorized to set public or hidden flag for cluster template."},
		{"not a list", `{"op":"replace"}`, 400, "Wrong type"},
		{"unknown key", `[{"op":"replace","path":"/name","value":"x","from":"/a"}]`, 400, "Unknown attribute for argument patch: from"},
		{"empty", ``, 400, `Missing argument: "patch"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(member, "", "PATCH", "/v1/clustertemplates/t1", tc.body), tc.status, tc.want)
			})
		})
	}
}

// A template a cluster runs on only takes Magnum's publishing changes.
func TestTemplatePatchReferenced(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(admin, "shared", nil)
	a.cluster(admin, "c1", tm.UUID, 1)
	for _, tc := range []struct {
		name, body string
		ok         bool
	}{
		{"rename", `[{"op":"replace","path":"/name","value":"renamed"}]`, true},
		{"publish", `[{"op":"replace","path":"/public","value":"true"}]`, true},
		{"hide", `[{"op":"replace","path":"/hidden","value":"true"}]`, true},
		{"tag", `[{"op":"add","path":"/tags","value":"gold"}]`, true},
		{"unpublish", `[{"op":"replace","path":"/public","value":"false"}]`, false},
		{"image", `[{"op":"replace","path":"/image_id","value":"other"}]`, false},
		{"two at once", `[{"op":"replace","path":"/name","value":"n2"},{"op":"replace","path":"/tags","value":"t"}]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ok {
				if r := a.do(admin, "", "PATCH", "/v1/clustertemplates/"+tm.UUID, tc.body); r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			a.expectNoCommit(func() {
				expectError(t, a.do(admin, "", "PATCH", "/v1/clustertemplates/"+tm.UUID, tc.body), 400,
					"ClusterTemplate "+tm.UUID+" is referenced by one or multiple clusters.")
			})
		})
	}
}

func TestTemplateDelete(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	used := a.template(member, "used", nil)
	a.cluster(member, "c1", used.UUID, 1)
	t.Run("referenced", func(t *testing.T) {
		a.expectNoCommit(func() {
			expectError(t, a.do(member, "", "DELETE", "/v1/clustertemplates/used", nil), 400, "is referenced by one or multiple clusters.")
		})
	})
	t.Run("other project", func(t *testing.T) {
		a.expectNoCommit(func() {
			expectError(t, a.do(member2, "", "DELETE", "/v1/clustertemplates/"+tm.UUID, nil), 404, "could not be found")
		})
	})
	t.Run("reader", func(t *testing.T) {
		a.expectNoCommit(func() {
			expectError(t, a.do(reader, "", "DELETE", "/v1/clustertemplates/"+tm.UUID, nil), 403, "clustertemplate:delete")
		})
	})
	t.Run("ok", func(t *testing.T) {
		if err := clustertemplates.Delete(context.Background(), a.client(member, ""), tm.UUID).ExtractErr(); err != nil {
			t.Fatal(err)
		}
		if msg := a.lastCommit(); !strings.HasPrefix(msg, "clustertemplate t1: delete") {
			t.Fatalf("commit: %s", msg)
		}
		expectError(t, a.do(member, "", "GET", "/v1/clustertemplates/"+tm.UUID, nil), 404, "could not be found")
	})
}

// Another project's public template can be read but not changed (403 from
// the policy on the template's project); a private one is not even found.
func TestTemplateCrossProject(t *testing.T) {
	a := newTestAPI(t)
	pub := a.template(admin, "pub", nil)
	if r := a.do(admin, "", "PATCH", "/v1/clustertemplates/"+pub.UUID, `[{"op":"replace","path":"/public","value":"true"}]`); r.status != 200 {
		t.Fatalf("publish: %d %s", r.status, r.body)
	}
	priv := a.template(member2, "priv", nil)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "", "PATCH", "/v1/clustertemplates/"+pub.UUID, `[{"op":"replace","path":"/name","value":"x"}]`), 403, "clustertemplate:update")
		expectError(t, a.do(member, "", "DELETE", "/v1/clustertemplates/"+pub.UUID, nil), 403, "clustertemplate:delete")
		expectError(t, a.do(member, "", "PATCH", "/v1/clustertemplates/"+priv.UUID, `[{"op":"replace","path":"/name","value":"x"}]`), 404, "could not be found")
	})
	if r := a.do(member, "", "GET", "/v1/clustertemplates/"+pub.UUID, nil); r.status != 200 {
		t.Fatalf("public GET: %d", r.status)
	}
	// An admin spans projects.
	if r := a.do(admin, "", "PATCH", "/v1/clustertemplates/"+priv.UUID, `[{"op":"replace","path":"/name","value":"adm"}]`); r.status != 200 {
		t.Fatalf("admin PATCH: %d %s", r.status, r.body)
	}
}
