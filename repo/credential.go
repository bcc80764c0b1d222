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

// RotateCredential replaces the application credential of an existing
// cluster with c (PATCH /v1/credentials). The one it replaces, and any
// earlier ones not yet deleted, become c's Retired list: they stay in
// Keystone until the reconciler has seen the cluster use c.
func RotateCredential(c *intent.ClusterCredential) WriteOption {
	return func(o *writeOptions) { o.rotated = c }
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
func credentialChanges(sn *gitstore.Snapshot, st *intent.ClusterState, isNew bool, given, rotated *intent.ClusterCredential, kr *secrets.Keyring) (*intent.ClusterCredential, []gitstore.Change, error) {
	p := intent.CredentialPath(st.Dir)
	if isNew {
		if given == nil {
			return nil, nil, nil
		}
		return sealCredential(st, given, kr)
	}
	c, err := LoadCredential(sn, st.Dir, kr)
	if err != nil {
		return nil, nil, err
	}
	if rotated != nil {
		return rotatedCredential(st, c, rotated, kr)
	}
	if c == nil {
		return nil, nil, nil
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

// rotatedCredential stores next in place of the cluster's credential cur
// (nil: the cluster used the configured credential, which is not the
// cluster's to delete), retiring cur and what cur had retired.
func rotatedCredential(st *intent.ClusterState, cur, next *intent.ClusterCredential, kr *secrets.Keyring) (*intent.ClusterCredential, []gitstore.Change, error) {
	n := *next
	n.Retired = nil
	if cur != nil {
		n.Retired = append(append(n.Retired, cur.Retired...), intent.CredentialRef{ID: cur.ID, UserID: cur.UserID})
	}
	return sealCredential(st, &n, kr)
}

// sealCredential encrypts c as the cluster's credential document.
func sealCredential(st *intent.ClusterState, c *intent.ClusterCredential, kr *secrets.Keyring) (*intent.ClusterCredential, []gitstore.Change, error) {
	plain, err := intent.MarshalClusterCredential(st.Cluster.UUID, c)
	if err != nil {
		return nil, nil, err
	}
	enc, err := kr.Encrypt(plain)
	if err != nil {
		return nil, nil, err
	}
	return c, []gitstore.Change{{Path: intent.CredentialPath(st.Dir), Data: enc}}, nil
}
