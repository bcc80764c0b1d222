package intent

import (
	"fmt"
	"path"
	"strings"
)

// A cluster's own Keystone application credential (made with its
// creator's token at create, docs/secrets.md) is kept next to its PKI,
// SOPS-encrypted: secrets/credential.sops.yaml. Its data (ID, secret and
// owner) is encrypted; the compiler renders it into the cluster's
// clouds.yaml on every write.
const (
	KindClusterCredential = "ClusterCredential"
	CredentialFile        = "credential.sops.yaml"
)

// CredentialPath is where the credential of the cluster in clusterDir lives.
func CredentialPath(clusterDir string) string {
	return path.Join(clusterDir, SecretsDir, CredentialFile)
}

// ClusterCredential is a cluster's application credential.
type ClusterCredential struct {
	ID     string
	Secret string
	UserID string // the owner, in whose name Keystone deletes it
	// Retired are the credentials this one replaced (PATCH
	// /v1/credentials) that may still be in Keystone: the reconciler
	// deletes them once the cluster's consumers use this one.
	Retired []CredentialRef
}

// CredentialRef names an application credential in Keystone.
type CredentialRef struct {
	ID     string
	UserID string
}

// String is the ref's form in Git and in the annotation: "<user_id>/<id>".
func (r CredentialRef) String() string { return r.UserID + "/" + r.ID }

// FormatCredentialRefs joins refs with commas (AnnotationRetiredAppCredentials).
func FormatCredentialRefs(refs []CredentialRef) string {
	s := make([]string, len(refs))
	for i, r := range refs {
		s[i] = r.String()
	}
	return strings.Join(s, ",")
}

// ParseCredentialRefs reads FormatCredentialRefs' form; "" is none.
func ParseCredentialRefs(s string) ([]CredentialRef, error) {
	if s == "" {
		return nil, nil
	}
	var refs []CredentialRef
	for _, x := range strings.Split(s, ",") {
		user, id, ok := strings.Cut(x, "/")
		if !ok || user == "" || id == "" || strings.Contains(id, "/") {
			return nil, fmt.Errorf("%q is not <user_id>/<application_credential_id>", x)
		}
		refs = append(refs, CredentialRef{ID: id, UserID: user})
	}
	return refs, nil
}

// Annotations of the cloud-config Secret naming its per-cluster
// application credential (absent when the cluster has none): the compiler
// writes them, the reconciler reads them to delete the credential in
// Keystone once the cluster is gone.
const (
	AnnotationAppCredentialID     = "keel.openkeel.io/application-credential-id"
	AnnotationAppCredentialUserID = "keel.openkeel.io/application-credential-user-id"
	// AnnotationRetiredAppCredentials lists the credentials a rotation
	// replaced (FormatCredentialRefs): the reconciler deletes them.
	AnnotationRetiredAppCredentials = "keel.openkeel.io/retired-application-credentials"
)

// AnnotationCredentialGeneration on the pod templates of the cloud
// provider's workloads in the workload cluster (the cloud controller
// manager, the CSI drivers) carries the cluster's credential generation
// (Facts.CredentialGeneration): they read cloud.conf only when they start,
// so a rotation must restart them, and the reconciler deletes the retired
// credentials once every one of them runs this generation. Absent until
// the first rotation, so that clusters never rotated keep their manifests.
const AnnotationCredentialGeneration = "keel.openkeel.io/credential-generation"

// The Secret of the workload cluster that holds cloud.conf.
const (
	WorkloadCloudConfigNamespace = "kube-system"
	WorkloadCloudConfigSecret    = "cloud-config"
)

// AnnotationServerGroupIDs of the cloud-config Secret lists, comma
// separated and sorted, the Nova server groups recorded in the cluster's
// facts (absent when none): the reconciler deletes them once the cluster
// is gone, as it does the credential.
const AnnotationServerGroupIDs = "keel.openkeel.io/server-group-ids"

// CloudConfig is what goes into the cluster's clouds.yaml, the identity
// CAPO uses for the cluster's OpenStack resources.
//
// Magnum's Cluster API driver creates one application credential per
// cluster; keel does too under Keystone (ClusterCredential). Without one,
// the credential comes from keel's configuration and defaults to clearly
// named placeholders (docs/secrets.md): CAPO cannot authenticate with them.
type CloudConfig struct {
	AuthURL                     string
	RegionName                  string
	Interface                   string // default "public"
	ApplicationCredentialID     string
	ApplicationCredentialSecret string
	// Insecure disables TLS verification (Magnum [capi_client] insecure).
	Insecure bool
	// CACert is the PEM bundle to trust for the OpenStack APIs ([capi_client]
	// ca_file); empty means the system roots.
	CACert string
}

// clusterCredentialDocument is the plaintext form of credential.sops.yaml.
type clusterCredentialDocument struct {
	TypeMeta    `json:",inline"`
	ClusterUUID string `json:"cluster_uuid"`
	// Data holds application_credential_id, application_credential_secret
	// and user_id; SOPS encrypts every value under data.
	Data map[string]string `json:"data"`
}

const (
	credID      = "application_credential_id"
	credSecret  = "application_credential_secret"
	credUser    = "user_id"
	credRetired = "retired_application_credentials"
)

// MarshalClusterCredential renders the plaintext credential document of a
// cluster (the caller encrypts it).
func MarshalClusterCredential(clusterUUID string, c *ClusterCredential) ([]byte, error) {
	data := map[string]string{credID: c.ID, credSecret: c.Secret, credUser: c.UserID}
	if len(c.Retired) > 0 {
		data[credRetired] = FormatCredentialRefs(c.Retired)
	}
	return Marshal(clusterCredentialDocument{
		TypeMeta:    TypeMeta{APIVersion: APIVersion, Kind: KindClusterCredential},
		ClusterUUID: clusterUUID,
		Data:        data,
	})
}

// ParseClusterCredential reads the decrypted credential document at p.
func ParseClusterCredential(p string, plain []byte) (*ClusterCredential, error) {
	var doc clusterCredentialDocument
	if err := Decode(p, plain, KindClusterCredential, &doc); err != nil {
		return nil, err
	}
	c := &ClusterCredential{ID: doc.Data[credID], Secret: doc.Data[credSecret], UserID: doc.Data[credUser]}
	if c.ID == "" || c.Secret == "" {
		return nil, fmt.Errorf("%s: incomplete application credential", p)
	}
	retired, err := ParseCredentialRefs(doc.Data[credRetired])
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p, credRetired, err)
	}
	c.Retired = retired
	return c, nil
}
