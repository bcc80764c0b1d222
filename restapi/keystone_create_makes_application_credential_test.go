package restapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
)

// Under Keystone, a cluster create makes exactly one application
// credential, in the caller's name with the caller's token, named after the
// cluster's UUID (as Magnum's Cluster API driver does). Git holds it only
// encrypted; the rendered cloud-config Secret, decrypted, carries it in
// clouds.yaml and names it (ID and owner) for the teardown.
func TestKeystoneCreateMakesApplicationCredential(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	kr := a.withKeyring(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	r := a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1"))
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmplID, _ := r.json(t)["uuid"].(string)
	r = a.createP1Cluster(t, tok, tmplID, "c1")
	if r.status != http.StatusAccepted {
		t.Fatalf("cluster: %d %s", r.status, r.body)
	}
	uuid, _ := r.json(t)["uuid"].(string)

	acs := a.ks.ApplicationCredentials(ksMember.ID)
	if len(acs) != 1 {
		t.Fatalf("%d application credentials of alice, want 1: %+v", len(acs), acs)
	}
	ac := acs[0]
	if ac.Name != uuid || ac.Description != "keel cluster c1 ("+uuid+")" || ac.Unrestricted {
		t.Errorf("credential name %q description %q unrestricted %v, want %q, the description naming c1, restricted",
			ac.Name, ac.Description, ac.Unrestricted, uuid)
	}
	if ac.ProjectID != ksMember.ProjectID || strings.Join(ac.Roles, ",") != "member,reader" {
		t.Errorf("credential project %q roles %v: want alice's token's", ac.ProjectID, ac.Roles)
	}
	if n := len(a.ks.ApplicationCredentials(ksBob.ID)) + len(a.ks.ApplicationCredentials("keel-service-id")); n != 0 {
		t.Errorf("%d credentials of other users", n)
	}

	// Git: the secret is in no blob of any commit; the credential document
	// is there, encrypted.
	if blobs := a.blobsContaining(t, ac.Secret); len(blobs) != 0 {
		t.Errorf("blobs %v hold the credential's secret in plaintext", blobs)
	}
	if doc := a.readFile(t, "credential.sops.yaml"); !strings.Contains(doc, "ENC[") || !strings.Contains(doc, "kind: ClusterCredential") {
		t.Errorf("credential.sops.yaml is not an encrypted ClusterCredential:\n%s", doc)
	}
	if strings.Contains(a.log.String(), ac.Secret) {
		t.Error("the logs carry the credential's secret")
	}

	// The rendered cloud-config, decrypted, is the cluster's credential.
	s := a.cloudConfig(t, kr)
	clouds := string(s.Data["clouds.yaml"])
	if !strings.Contains(clouds, "application_credential_id: "+ac.ID) || !strings.Contains(clouds, "application_credential_secret: "+ac.Secret) {
		t.Errorf("clouds.yaml does not carry the cluster's credential:\n%s", clouds)
	}
	if strings.Contains(clouds, compiler.PlaceholderCredentialID) {
		t.Errorf("clouds.yaml still carries the placeholder:\n%s", clouds)
	}
	if s.Annotations[intent.AnnotationAppCredentialID] != ac.ID || s.Annotations[intent.AnnotationAppCredentialUserID] != ksMember.ID {
		t.Errorf("cloud-config annotations %v: want the credential's ID and owner", s.Annotations)
	}
}
