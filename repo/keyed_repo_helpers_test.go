package repo

import (
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// newKeyedStore is a new, empty repository and a new age identity.
func newKeyedStore(t *testing.T) (*gitstore.Store, *secrets.Keyring) {
	t.Helper()
	store, err := gitstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kr, _, err := secrets.GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	return store, kr
}

// keyedRepo is a new repository holding testCluster(), written with a new
// age identity, and the option that writes it again with that identity.
func keyedRepo(t *testing.T) (*gitstore.Store, *secrets.Keyring, WriteOption, *intent.ClusterTemplate, *intent.ClusterState) {
	t.Helper()
	store, kr := newKeyedStore(t)
	opt := WithSecrets(&Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.org/v3"}})
	tmpl, st := testCluster()
	if err := write(t, store, tmpl, st, opt); err != nil {
		t.Fatal(err)
	}
	return store, kr, opt, tmpl, st
}
