package restapi

import (
	"context"
	"strings"
	"testing"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Keystone, a cluster create makes one application
// credential of the caller, named after the cluster's UUID, restricted and
// in the caller's project. Git holds it only encrypted (its secret is in
// no blob, log or file of keel's); the clouds.yaml of the rendered
// cloud-config Secret (what CAPO and OCCM read) carries it, and what it
// says authenticates with Keystone, scoped to the caller's project.
func TestRealOpenStackCreateMakesApplicationCredential(t *testing.T) {
	a, cloud, kr := newRealCloudAPI(t)
	p := cloud.NewProject(t)
	p.Keypair(t, "my-key")
	tok := p.Token(t)
	uuid := a.realCluster(t, tok, a.realTemplate(t, tok, cloud.Image, cloud), "c1", "my-key", nil)

	ic, err := gcos.NewIdentityV3(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	pages, err := applicationcredentials.List(ic, p.UserID, applicationcredentials.ListOpts{}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	acs, err := applicationcredentials.ExtractApplicationCredentials(pages)
	if err != nil || len(acs) != 1 || acs[0].Name != uuid || acs[0].Unrestricted || acs[0].ProjectID != p.ID {
		t.Fatalf("Keystone holds %+v (%v): want one restricted credential named %s in project %s", acs, err, uuid, p.ID)
	}

	if doc := a.readFile(t, "credential.sops.yaml"); !strings.Contains(doc, "ENC[") || !strings.Contains(doc, "kind: ClusterCredential") {
		t.Errorf("credential.sops.yaml is not an encrypted ClusterCredential:\n%s", doc)
	}
	s := a.cloudConfigOf(t, kr, a.loadState(uuid).Dir)
	if s.Annotations[intent.AnnotationAppCredentialID] != acs[0].ID {
		t.Errorf("the cloud-config Secret names credential %q, want %s", s.Annotations[intent.AnnotationAppCredentialID], acs[0].ID)
	}
	if got := string(s.Data["clouds.yaml"]); !strings.Contains(got, "auth_type: v3applicationcredential") {
		t.Fatalf("clouds.yaml does not authenticate with an application credential:\n%s", got)
	}
	auth := cloudsAuth(t, s)
	if auth.ApplicationCredentialID != acs[0].ID {
		t.Fatalf("clouds.yaml authenticates with %s, want %s", auth.ApplicationCredentialID, acs[0].ID)
	}
	pc, err := realopenstack.Authenticate(auth)
	if err != nil {
		t.Fatalf("clouds.yaml's credential does not authenticate: %v", err)
	}
	a.expectNowhere(t, auth.ApplicationCredentialSecret)
	res, _ := pc.GetAuthResult().(tokens.CreateResult)
	if proj, err := res.ExtractProject(); err != nil || proj == nil || proj.ID != p.ID {
		t.Errorf("clouds.yaml's token is scoped to %+v (%v), want project %s", proj, err, p.ID)
	}
}
