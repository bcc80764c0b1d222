package restapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/lookup"
)

// The per-cluster application credential (docs/secrets.md): under
// Keystone, a cluster create makes one application credential in the
// caller's name with the caller's token, as Magnum's Cluster API driver
// does, stores it encrypted with the cluster and renders it into the
// cluster's clouds.yaml. The reconciler deletes it once the cluster is gone.

// createClusterCredential makes the cluster's application credential when
// the request carries the caller's Keystone token and catalog (the
// condition under which the lookups run as the caller) and the cloud makes
// credentials; nil otherwise (noauth, lookups "given": the configured or
// placeholder credential is rendered).
func (s *Server) createClusterCredential(ctx context.Context, who requester, projectID, userID, uuid, name string) (*intent.ClusterCredential, error) {
	return s.makeCredential(ctx, who, projectID, userID, uuid, uuid, fmt.Sprintf("keel cluster %s (%s)", name, uuid))
}

// makeCredential makes the application credential credName of the cluster
// uuid in the caller's name (createClusterCredential).
func (s *Server) makeCredential(ctx context.Context, who requester, projectID, userID, uuid, credName, description string) (*intent.ClusterCredential, error) {
	creds := who.creds
	ac, ok := s.cloud().(openstack.ApplicationCredentials)
	// Without a keyring keel renders no Secrets (so no clouds.yaml) and
	// could not store the credential encrypted.
	if creds.Token == nil || !ok || s.cfg.Secrets == nil || s.cfg.Secrets.Keyring == nil {
		return nil, nil
	}
	ctx = openstack.WithScope(ctx, openstack.Scope{ProjectID: projectID, UserID: userID, Token: creds.Token})
	made, err := ac.CreateApplicationCredential(ctx, credName, description)
	if err != nil {
		var fb *openstack.ForbiddenError
		var ua *openstack.UnauthorizedError
		if errors.As(err, &fb) || errors.As(err, &ua) {
			return nil, lookup.Error(err)
		}
		who.Logger().Error("creating the cluster's application credential", "cluster", uuid, "err", err)
		return nil, &apierr.Error{Status: http.StatusInternalServerError, Msg: fmt.Sprintf("Creating the cluster's application credential in Keystone failed: %v", err)}
	}
	if made == nil {
		return nil, nil
	}
	// Only the ID is logged: the secret never leaves memory unencrypted.
	who.Logger().Info("created the cluster's application credential", "cluster", uuid, "application_credential_id", made.ID)
	return &intent.ClusterCredential{ID: made.ID, Secret: made.Secret, UserID: made.UserID}, nil
}

// dropClusterCredential deletes a credential whose cluster was not
// committed, with the caller's token (their own credential), best effort:
// a failure is logged and leaves an unused credential in Keystone.
func (s *Server) dropClusterCredential(ctx context.Context, who requester, projectID string, cred *intent.ClusterCredential) {
	ac, ok := s.cloud().(openstack.ApplicationCredentials)
	if cred == nil || !ok {
		return
	}
	// The request may be cancelled (the client went away): delete anyway.
	ctx = context.WithoutCancel(ctx)
	ctx = openstack.WithScope(ctx, openstack.Scope{ProjectID: projectID, UserID: cred.UserID, Token: who.creds.Token})
	if err := ac.DeleteApplicationCredential(ctx, cred.UserID, cred.ID); err != nil {
		who.Logger().Warn("the cluster was not created; deleting its application credential failed, it is left in Keystone",
			"application_credential_id", cred.ID, "user_id", cred.UserID, "err", err)
		return
	}
	who.Logger().Info("the cluster was not created; deleted its application credential", "application_credential_id", cred.ID)
}

// committed reports whether HEAD holds the cluster folder dir: commit can
// fail after the commit was made (projecting it into the read model), and
// a committed cluster keeps its credential.
func (s *Server) committed(dir string) bool {
	if dir == "" {
		return false
	}
	sn, err := s.cfg.Store.SnapshotHead()
	if err != nil {
		return true // unknown: keeping a credential is the safe mistake
	}
	return sn.Exists(dir)
}
