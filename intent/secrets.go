package intent

import "path"

// A cluster's generated key material (its CAs and service-account key)
// lives next to its intent, SOPS-encrypted (internal/secrets):
//
//	projects/<project>/clusters/<name>-<stack_id>/secrets/pki.sops.yaml
//
// The document is written once, when the cluster is created; the compiler
// renders the Cluster API Secrets from it.
const (
	KindClusterPKI = "ClusterPKI"
	SecretsDir     = "secrets"
	PKIFile        = "pki.sops.yaml"
)

// PKIPath is where the key material of the cluster in clusterDir lives.
func PKIPath(clusterDir string) string { return path.Join(clusterDir, SecretsDir, PKIFile) }

// ClusterPKI is the plaintext form of pki.sops.yaml. Certificates and
// public keys are not secret and stay readable in Git (a reviewer sees a CA
// change in a diff); the private keys are under Data, which SOPS encrypts.
// Both are covered by the SOPS MAC, so neither can be altered unnoticed.
type ClusterPKI struct {
	TypeMeta    `json:",inline"`
	ClusterUUID string `json:"cluster_uuid"`
	// Certificates holds ca.crt, etcd-ca.crt, front-proxy-ca.crt (PEM) and
	// sa.pub (PEM public key).
	Certificates map[string]string `json:"certificates"`
	// Data holds the PEM private keys: ca.key, etcd-ca.key,
	// front-proxy-ca.key, sa.key.
	Data map[string]string `json:"data"`
}
