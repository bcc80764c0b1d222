package restapi

import (
	"net/http"
	"testing"
)

// A create refused after its application credential was made (the quota,
// checked in the commit on the snapshot being committed) deletes the
// credential again: Keystone keeps only the committed cluster's.
func TestKeystoneCreateRefusedDeletesCredential(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	a.withKeyring(t)
	a.api.cfg.MaxClustersPerProject = 1
	tok := a.ks.Issue(t, ksMember.Name, 0)
	r := a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1"))
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmplID, _ := r.json(t)["uuid"].(string)
	r = a.createP1Cluster(t, tok, tmplID, "c1")
	if r.status != http.StatusAccepted {
		t.Fatalf("first cluster: %d %s", r.status, r.body)
	}
	kept, _ := r.json(t)["uuid"].(string)

	a.expectNoCommit(func() {
		expectError(t, a.createP1Cluster(t, tok, tmplID, "c2"), http.StatusForbidden, "maximum clusters per project")
	})
	const create = "POST /v3/users/" + "alice-id" + "/application_credentials"
	if n := a.ks.Requests(create); n != 2 {
		t.Fatalf("%d credentials created, want 2 (the refused create's included)", n)
	}
	acs := a.ks.ApplicationCredentials(ksMember.ID)
	if len(acs) != 1 || acs[0].Name != kept {
		t.Fatalf("alice's credentials %+v: want only c1's (%s)", acs, kept)
	}
}
