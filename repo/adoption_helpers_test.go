package repo

import (
	"context"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// adoptedTestCluster is testCluster as keel import --adopt writes it:
// adopted from magnum-cluster-api, on the driver's ClusterClass.
func adoptedTestCluster() (*intent.ClusterTemplate, *intent.ClusterState) {
	tmpl, st := testCluster()
	st.Cluster.ClusterClass = "magnum-v0.26.2"
	st.Cluster.Adopted = &intent.Adopted{From: "magnum-cluster-api", Status: "CREATE_COMPLETE", Class: "magnum-v0.26.2",
		Topology: map[string]any{"classRef": map[string]any{"name": "magnum-v0.26.2"}, "version": "v1.33.4",
			"workers": map[string]any{"machineDeployments": []any{map[string]any{"class": "default-worker", "name": "default-worker"}}}}}
	return tmpl, st
}

// importedAdoption is a new repository, with a new keyring, holding what
// keel import --adopt commits for st before it renders it.
func importedAdoption(t *testing.T, tmpl *intent.ClusterTemplate, st *intent.ClusterState) (*gitstore.Store, *secrets.Keyring) {
	t.Helper()
	store, kr := newKeyedStore(t)
	importLike(t, store, tmpl, st, kr)
	return store, kr
}

// importLike commits what keel import commits for an adopted cluster: its
// template, intent and key material, but no rendered output.
func importLike(t *testing.T, store *gitstore.Store, tmpl *intent.ClusterTemplate, st *intent.ClusterState, kr *secrets.Keyring) {
	t.Helper()
	if err := write(t, store, tmpl, st, WithSecrets(&Secrets{Keyring: kr})); err != nil {
		t.Fatal(err)
	}
	td, err := Document(intent.TemplatePath(tmpl.ProjectID, tmpl.UUID), *tmpl)
	if err != nil {
		t.Fatal(err)
	}
	commit(t, store, []gitstore.Change{td, {Path: intent.RenderedPath(st.Dir), Delete: true}})
}

func commit(t *testing.T, store *gitstore.Store, changes []gitstore.Change) {
	t.Helper()
	_, err := store.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
		return &gitstore.Commit{Subject: "t", Author: gitstore.Signature{Name: "t", Email: "t@x"}, Changes: changes}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
