package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// A cluster's later writes (here a resize) re-render its clouds.yaml with
// the application credential made at create, stored unchanged, and make no
// new one.
func TestKeystoneUpdateKeepsApplicationCredential(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	kr := a.withKeyring(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	a.createP1TemplateAndCluster(t, tok, "c1")
	stored := a.readFile(t, "credential.sops.yaml")
	r := a.doToken(tok, "PATCH", "/v1/clusters/c1", []map[string]any{{"op": "replace", "path": "/node_count", "value": 2}})
	if r.status != http.StatusAccepted {
		t.Fatalf("resize: %d %s", r.status, r.body)
	}
	if !strings.Contains(a.readFile(t, "default-worker.yaml"), "node_count: 2") {
		t.Fatal("the resize was not committed")
	}
	acs := a.ks.ApplicationCredentials(ksMember.ID)
	if len(acs) != 1 {
		t.Fatalf("%d credentials, want the create's only", len(acs))
	}
	if a.readFile(t, "credential.sops.yaml") != stored {
		t.Error("the stored credential changed")
	}
	clouds := string(a.cloudConfig(t, kr).Data["clouds.yaml"])
	if !strings.Contains(clouds, "application_credential_id: "+acs[0].ID) || !strings.Contains(clouds, "application_credential_secret: "+acs[0].Secret) {
		t.Errorf("the re-rendered clouds.yaml lost the credential:\n%s", clouds)
	}
}
