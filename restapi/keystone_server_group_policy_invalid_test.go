package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// A server_group_policies value Nova does not know is refused with a
// Magnum 400 naming the label and the allowed policies, before anything is
// made in Nova or committed (the reference silently drops it).
func TestKeystoneServerGroupPolicyInvalid(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	a.withKeyring(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	r := a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1"))
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmplID, _ := r.json(t)["uuid"].(string)
	for _, bad := range []string{"bogus", "anti-affinity,affinity", ""} {
		commits := a.commitCount()
		r = a.doToken(tok, "POST", "/v1/clusters", map[string]any{"name": "c1", "cluster_template_id": tmplID, "keypair": "alice-key",
			"labels": map[string]string{"server_group_policies": bad}, "merge_labels": true})
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "server_group_policies") || !strings.Contains(string(r.body), "soft-anti-affinity") {
			t.Errorf("server_group_policies=%q: %d %s, want a 400 naming the label and the allowed values", bad, r.status, r.body)
		}
		if a.commitCount() != commits {
			t.Errorf("server_group_policies=%q: committed", bad)
		}
	}
	if n := a.services.groups.Creates(); n != 0 {
		t.Errorf("%d server groups created for refused requests", n)
	}
}
