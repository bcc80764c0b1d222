package compiler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
)

// A cluster's own application credential replaces the configured one in
// clouds.yaml and is named on the cloud-config Secret (for the teardown);
// without one, the placeholder is rendered and no annotation is.
func TestCompileClusterCredentialOverridesConfigured(t *testing.T) {
	cloudConfig := func(in Input) *corev1.Secret {
		t.Helper()
		docs, err := Compile(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if d.Path == "secret-cloud-config.yaml" {
				var s corev1.Secret
				if err := yaml.Unmarshal(d.Bytes(), &s); err != nil {
					t.Fatal(err)
				}
				return &s
			}
		}
		t.Fatal("no cloud-config Secret")
		return nil
	}
	in := secretsInput(t)
	s := cloudConfig(in)
	if !strings.Contains(string(s.Data["clouds.yaml"]), PlaceholderCredentialID) || len(s.Annotations) != 0 {
		t.Fatalf("without a cluster credential: annotations %v, clouds.yaml\n%s", s.Annotations, s.Data["clouds.yaml"])
	}

	withCred := *in.Secrets
	withCred.Cloud.ApplicationCredentialID, withCred.Cloud.ApplicationCredentialSecret = "configured-id", "configured-secret"
	withCred.Credential = &intent.ClusterCredential{ID: "ac-1", Secret: "s3cr3t", UserID: "alice-id"}
	in.Secrets = &withCred
	s = cloudConfig(in)
	clouds := string(s.Data["clouds.yaml"])
	if !strings.Contains(clouds, "application_credential_id: ac-1") || !strings.Contains(clouds, "application_credential_secret: s3cr3t") ||
		strings.Contains(clouds, "configured-") {
		t.Errorf("clouds.yaml does not carry the cluster's credential:\n%s", clouds)
	}
	if s.Annotations[intent.AnnotationAppCredentialID] != "ac-1" || s.Annotations[intent.AnnotationAppCredentialUserID] != "alice-id" {
		t.Errorf("annotations %v", s.Annotations)
	}
	if strings.Contains(s.Annotations[intent.AnnotationAppCredentialID]+s.Annotations[intent.AnnotationAppCredentialUserID], "s3cr3t") {
		t.Error("the secret is in an annotation")
	}
}
