package repo

import (
	"bytes"
	"errors"
	"fmt"
	"path"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// A cluster's own Keystone application credential (made with its
// creator's token at create, docs/secrets.md) is kept next to its PKI,
// SOPS-encrypted: secrets/credential.sops.yaml. Its data (ID, secret and
// owner) is encrypted; WriteCluster renders it into the cluster's
// clouds.yaml on every write.
const (
	KindClusterCredential = "ClusterCredential"
	CredentialFile        = "credential.sops.yaml"
)

// CredentialPath is where the credential of the cluster in clusterDir lives.
func CredentialPath(clusterDir string) string {
	return path.Join(clusterDir, intent.SecretsDir, CredentialFile)
}

// clusterCredentialDoc is the plaintext form of credential.sops.yaml.
type clusterCredentialDoc struct {
	intent.TypeMeta `json:",inline"`
	ClusterUUID     string `json:"cluster_uuid"`
	// Data holds application_credential_id, application_credential_secret
	// and user_id; SOPS encrypts every value under data.
	Data map[string]string `json:"data"`
}

const (
	credID     = "application_credential_id"
	credSecret = "application_credential_secret"
	credUser   = "user_id"
)

// WithCredential gives a cluster being created its own application
// credential (ignored for an existing cluster, which keeps the one it has).
func WithCredential(c *compiler.ClusterCredential) WriteOption {
	return func(o *writeOptions) { o.credential = c }
}

func credentialDocument(clusterUUID string, c *compiler.ClusterCredential) ([]byte, error) {
	return intent.Marshal(clusterCredentialDoc{
		TypeMeta:    intent.TypeMeta{APIVersion: intent.APIVersion, Kind: KindClusterCredential},
		ClusterUUID: clusterUUID,
		Data:        map[string]string{credID: c.ID, credSecret: c.Secret, credUser: c.UserID},
	})
}

// LoadCredential decrypts the application credential of the cluster folder
// dir; nil, nil when the cluster has none (it uses keel's configured one).
func LoadCredential(sn *gitstore.Snapshot, dir string, kr *secrets.Keyring) (*compiler.ClusterCredential, error) {
	p := CredentialPath(dir)
	plain, err := readDecrypted(sn, p, kr)
	if errors.Is(err, gitstore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc clusterCredentialDoc
	if err := intent.Decode(p, plain, KindClusterCredential, &doc); err != nil {
		return nil, err
	}
	c := &compiler.ClusterCredential{ID: doc.Data[credID], Secret: doc.Data[credSecret], UserID: doc.Data[credUser]}
	if c.ID == "" || c.Secret == "" {
		return nil, fmt.Errorf("%s: incomplete application credential", p)
	}
	return c, nil
}

// credentialChanges returns the cluster's credential to render and the
// change storing it: a new cluster's given credential, encrypted; an
// existing cluster's stored one, re-encrypted only after a key rotation.
func credentialChanges(sn *gitstore.Snapshot, st *ClusterState, isNew bool, given *compiler.ClusterCredential, kr *secrets.Keyring) (*compiler.ClusterCredential, []gitstore.Change, error) {
	p := CredentialPath(st.Dir)
	if isNew {
		if given == nil {
			return nil, nil, nil
		}
		plain, err := credentialDocument(st.Cluster.UUID, given)
		if err != nil {
			return nil, nil, err
		}
		enc, err := kr.Encrypt(plain)
		if err != nil {
			return nil, nil, err
		}
		return given, []gitstore.Change{{Path: p, Data: enc}}, nil
	}
	c, err := LoadCredential(sn, st.Dir, kr)
	if err != nil || c == nil {
		return nil, nil, err
	}
	old, err := sn.ReadFile(p)
	if err != nil {
		return nil, nil, err
	}
	plain, err := credentialDocument(st.Cluster.UUID, c)
	if err != nil {
		return nil, nil, err
	}
	enc, err := kr.Reseal(old, plain)
	if err != nil {
		return nil, nil, err
	}
	if bytes.Equal(enc, old) {
		return c, nil, nil
	}
	return c, []gitstore.Change{{Path: p, Data: enc}}, nil
}
