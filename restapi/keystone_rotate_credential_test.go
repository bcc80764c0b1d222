package restapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// PATCH /v1/credentials (1.12) as another member of the cluster's project:
// a new application credential in that member's name replaces the
// creator's in Git, in clouds.yaml and in the workload cluster's
// cloud.conf; the creator's is kept in Keystone, listed as retired, and a
// second rotation retires both earlier ones. The secrets are never in clear
// in Git or the logs.
func TestKeystoneRotateCredentialReplacesAndRetires(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	kr := a.withKeyring(t)
	alice, bob := a.ks.Issue(t, ksMember.Name, 0), a.ks.Issue(t, ksBob.Name, 0)
	uuid := a.createP1TemplateAndCluster(t, alice, "c1")
	first := a.ks.ApplicationCredentials(ksMember.ID)[0]

	second := a.rotate(t, bob, uuid, uuid, 1)
	a.expectCredential(t, kr, second, []intent.CredentialRef{{ID: first.ID, UserID: ksMember.ID}})
	a.expectCredentialGeneration(t, 1)
	if len(a.ks.ApplicationCredentials(ksMember.ID)) != 1 {
		t.Error("the creator's credential left Keystone: consumers may still use it")
	}
	msg := a.lastCommit()
	if !strings.HasPrefix(msg, "cluster c1: rotate the application credential (now "+second.ID+")") ||
		!strings.Contains(msg, "Keel-Operation: "+status.OpRotateCredential) {
		t.Errorf("commit:\n%s", msg)
	}

	third := a.rotate(t, bob, "c1", uuid, 2)
	if third.Name == second.Name {
		t.Errorf("both of bob's credentials are named %s (Keystone wants names unique per user)", third.Name)
	}
	a.expectCredential(t, kr, third, []intent.CredentialRef{{ID: first.ID, UserID: ksMember.ID}, {ID: second.ID, UserID: ksBob.ID}})
	a.expectCredentialGeneration(t, 2)
	for _, s := range []string{second.Secret, third.Secret} {
		a.expectNowhere(t, s)
	}
	head, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schemas.SiteCatalogue(head)
	if err != nil {
		t.Fatal(err)
	}
	if _, problems, err := repo.Staleness(head, a.loadState(uuid).Dir, cat); err != nil || len(problems) > 0 {
		t.Errorf("keel compile --check after the rotations: %v %v", problems, err)
	}
}

// rotate rotates the credential of cluster ident (uuid) with bob's token
// tok at 1.12, and returns the credential it made, bob's n-th.
func (a *keystoneCloudAPI) rotate(t *testing.T, tok, ident, uuid string, n int) struct{ ID, Name, Secret string } {
	t.Helper()
	had := map[string]bool{}
	for _, ac := range a.ks.ApplicationCredentials(ksBob.ID) {
		had[ac.ID] = true
	}
	r := a.doTokenMV(tok, "1.12", "PATCH", "/v1/credentials/"+ident, map[string]any{"ignored": true})
	if r.status != http.StatusAccepted || r.json(t)["uuid"] != uuid {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}
	acs := a.ks.ApplicationCredentials(ksBob.ID)
	if len(acs) != n {
		t.Fatalf("bob has %d credentials, want %d", len(acs), n)
	}
	var made struct{ ID, Name, Secret string }
	for _, ac := range acs {
		if !strings.HasPrefix(ac.Name, uuid+"-") || ac.Unrestricted || ac.ProjectID != ksBob.ProjectID {
			t.Fatalf("credential %+v", ac)
		}
		if !had[ac.ID] {
			made.ID, made.Name, made.Secret = ac.ID, ac.Name, ac.Secret
		}
	}
	return made
}

// expectCredential checks that HEAD's stored, clouds.yaml and cloud.conf
// credential is cur, with retired listed in Git and on the Secret.
func (a *keystoneCloudAPI) expectCredential(t *testing.T, kr *secrets.Keyring, cur struct{ ID, Name, Secret string }, retired []intent.CredentialRef) {
	t.Helper()
	plain, err := kr.Decrypt([]byte(a.readFile(t, intent.CredentialFile)))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := intent.ParseClusterCredential(intent.CredentialFile, plain)
	if err != nil {
		t.Fatal(err)
	}
	if stored.ID != cur.ID || stored.Secret != cur.Secret || stored.UserID != ksBob.ID ||
		intent.FormatCredentialRefs(stored.Retired) != intent.FormatCredentialRefs(retired) {
		t.Errorf("stored %s of %s retiring %v, want %s of %s retiring %v", stored.ID, stored.UserID, stored.Retired, cur.ID, ksBob.ID, retired)
	}
	cc := a.cloudConfig(t, kr)
	clouds := string(cc.Data["clouds.yaml"])
	if !strings.Contains(clouds, "application_credential_id: "+cur.ID) || !strings.Contains(clouds, "application_credential_secret: "+cur.Secret) {
		t.Errorf("clouds.yaml:\n%s", clouds)
	}
	if got := cc.Annotations[intent.AnnotationAppCredentialID]; got != cur.ID {
		t.Errorf("the Secret names %s", got)
	}
	if got := cc.Annotations[intent.AnnotationRetiredAppCredentials]; got != intent.FormatCredentialRefs(retired) {
		t.Errorf("the Secret retires %q, want %q", got, intent.FormatCredentialRefs(retired))
	}
	if conf := a.workloadCloudConf(t, kr); !strings.Contains(conf, `application-credential-id = "`+cur.ID+`"`) ||
		!strings.Contains(conf, `application-credential-secret = "`+cur.Secret+`"`) {
		t.Errorf("the workload cluster's cloud.conf:\n%s", conf)
	}
}

// workloadCloudConf is the cloud.conf HEAD delivers to the workload cluster
// (kube-system/cloud-config, inside the cloud-provider set's Secret).
func (a *keystoneCloudAPI) workloadCloudConf(t *testing.T, kr *secrets.Keyring) string {
	t.Helper()
	plain, err := kr.Decrypt([]byte(a.readFile(t, "secret-cloud-provider.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	var outer, inner corev1.Secret
	if err := yaml.Unmarshal(plain, &outer); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(outer.Data["cloud-config-secret.yaml"], &inner); err != nil {
		t.Fatal(err)
	}
	return string(inner.Data["cloud.conf"])
}

// expectCredentialGeneration checks HEAD's count of rotations, in the
// facts and on the cloud controller manager's pod template (which its
// change restarts).
func (a *keystoneCloudAPI) expectCredentialGeneration(t *testing.T, n int) {
	t.Helper()
	if f := a.readFile(t, intent.FactsFile); !strings.Contains(f, fmt.Sprintf("credential_generation: %d\n", n)) {
		t.Errorf("facts:\n%s", f)
	}
	if cm := a.readFile(t, "configmap-cloud-provider.yaml"); !strings.Contains(cm, fmt.Sprintf("%s: \"%d\"", intent.AnnotationCredentialGeneration, n)) {
		t.Errorf("the cloud-provider payload does not carry generation %d", n)
	}
}
