package restapi

import (
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Keystone, the case rotation exists for: the cluster's
// creator is deleted in Keystone, which deletes their application
// credentials, so the cluster's clouds.yaml authenticates no more; another
// member of the project rotates the credential (1.12), and clouds.yaml
// authenticates again, as that member, scoped to the project, with the
// creator's credential listed as retired.
func TestRealOpenStackRotateAfterCreatorDeleted(t *testing.T) {
	a, cloud, kr := newRealCloudAPI(t)
	alice := cloud.NewProject(t)
	alice.Keypair(t, "my-key")
	bob := alice.AnotherUser(t)
	tok := alice.Token(t)
	uuid := a.realCluster(t, tok, a.realTemplate(t, tok, cloud.Image, cloud), "c1", "my-key", nil)
	dir := a.loadState(uuid).Dir
	old := cloudsAuth(t, a.cloudConfigOf(t, kr, dir))
	if _, err := realopenstack.Authenticate(old); err != nil {
		t.Fatalf("the creator's credential: %v", err)
	}

	alice.DeleteUser(t)
	if _, err := realopenstack.Authenticate(old); err == nil {
		t.Fatal("the deleted creator's credential still authenticates")
	}
	if r := a.doTokenMV(bob.Token(t), "1.12", "PATCH", "/v1/credentials/"+uuid, nil); r.status != http.StatusAccepted {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}

	s := a.cloudConfigOf(t, kr, dir)
	cur := cloudsAuth(t, s)
	pc, err := realopenstack.Authenticate(cur)
	if err != nil {
		t.Fatalf("the rotated credential: %v", err)
	}
	res, _ := pc.GetAuthResult().(tokens.CreateResult)
	proj, perr := res.ExtractProject()
	user, uerr := res.ExtractUser()
	if perr != nil || uerr != nil || proj == nil || proj.ID != alice.ID || user == nil || user.ID != bob.UserID {
		t.Errorf("the rotated credential authenticates as %+v in %+v (%v %v), want user %s in project %s", user, proj, uerr, perr, bob.UserID, alice.ID)
	}
	want := intent.FormatCredentialRefs([]intent.CredentialRef{{ID: old.ApplicationCredentialID, UserID: alice.UserID}})
	if got := s.Annotations[intent.AnnotationRetiredAppCredentials]; got != want {
		t.Errorf("retired %q, want %q", got, want)
	}
	a.expectNowhere(t, cur.ApplicationCredentialSecret)
}

// cloudsAuth is how the clouds.yaml of a cloud-config Secret
// authenticates.
func cloudsAuth(t *testing.T, s *corev1.Secret) gophercloud.AuthOptions {
	t.Helper()
	var clouds struct {
		Clouds map[string]struct {
			Auth struct {
				AuthURL string `json:"auth_url"`
				ID      string `json:"application_credential_id"`
				Secret  string `json:"application_credential_secret"`
			} `json:"auth"`
		} `json:"clouds"`
	}
	if err := yaml.Unmarshal(s.Data["clouds.yaml"], &clouds); err != nil || len(clouds.Clouds) != 1 {
		t.Fatalf("clouds.yaml: %v:\n%s", err, s.Data["clouds.yaml"])
	}
	c := clouds.Clouds["default"]
	return gophercloud.AuthOptions{IdentityEndpoint: c.Auth.AuthURL, ApplicationCredentialID: c.Auth.ID, ApplicationCredentialSecret: c.Auth.Secret}
}
