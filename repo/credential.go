package repo

import (
	"bytes"
	"errors"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// A cluster's own Keystone application credential is kept next to its PKI
// (intent.CredentialPath), SOPS-encrypted: repo encrypts and decrypts it,
// intent reads and writes its plaintext document.

// WithCredential gives a cluster being created its own application
// credential (ignored for an existing cluster, which keeps the one it has).
func WithCredential(c *intent.ClusterCredential) WriteOption {
	return func(o *writeOptions) { o.credential = c }
}

// LoadCredential decrypts the application credential of the cluster folder
// dir; nil, nil when the cluster has none (it uses keel's configured one).
func LoadCredential(sn *gitstore.Snapshot, dir string, kr *secrets.Keyring) (*intent.ClusterCredential, error) {
	p := intent.CredentialPath(dir)
	plain, err := readDecrypted(sn, p, kr)
	if errors.Is(err, gitstore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return intent.ParseClusterCredential(p, plain)
}

// credentialChanges returns the cluster's credential to render and the
// change storing it: a new cluster's given credential, encrypted; an
// existing cluster's stored one, re-encrypted only after a key rotation.
func credentialChanges(sn *gitstore.Snapshot, st *intent.ClusterState, isNew bool, given *intent.ClusterCredential, kr *secrets.Keyring) (*intent.ClusterCredential, []gitstore.Change, error) {
	p := intent.CredentialPath(st.Dir)
	if isNew {
		if given == nil {
			return nil, nil, nil
		}
		plain, err := intent.MarshalClusterCredential(st.Cluster.UUID, given)
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
	plain, err := intent.MarshalClusterCredential(st.Cluster.UUID, c)
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
