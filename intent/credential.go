package intent

// Annotations of the cloud-config Secret naming its per-cluster
// application credential (absent when the cluster has none): the compiler
// writes them, the reconciler reads them to delete the credential in
// Keystone once the cluster is gone.
const (
	AnnotationAppCredentialID     = "keel.openkeel.io/application-credential-id"
	AnnotationAppCredentialUserID = "keel.openkeel.io/application-credential-user-id"
)
