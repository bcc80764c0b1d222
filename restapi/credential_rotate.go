package restapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/status"
)

// rotateClusterCredential gives the cluster a new application credential,
// made with the caller's token in the caller's name, and commits it in
// place of the old one, which becomes retired (docs/secrets.md). A
// credential whose commit failed is deleted again, as at create.
func (s *Server) rotateClusterCredential(ctx context.Context, who requester, view *readmodel.ClusterView) error {
	// Keystone wants an application credential's name unique per user: the
	// same user may rotate many times, and may have created the cluster
	// (whose first credential is named after its UUID).
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	name := view.UUID + "-" + hex.EncodeToString(suffix)
	cred, err := s.makeCredential(ctx, who, view.ProjectID, who.UserID, view.UUID, name,
		fmt.Sprintf("keel cluster %s (%s), rotated", view.Name, view.UUID))
	if err != nil {
		return err
	}
	if cred == nil {
		return errCannotRotate(view.UUID)
	}
	_, err = s.mutateClusterWith(ctx, who, view.Dir, rotateCredentialChange(cred), nil, repo.RotateCredential(cred))
	if err != nil && !s.holdsCredential(view.Dir, cred.ID) {
		s.dropClusterCredential(ctx, who, view.ProjectID, cred)
	}
	return err
}

// errCannotRotate: without the caller's Keystone token (noauth, lookups
// "given") or keel's age identity there is no credential keel could make
// or store.
func errCannotRotate(uuid string) error {
	return apierr.BadRequest("Cannot rotate the credential of cluster %s: keel makes the new application credential with the caller's Keystone token and stores it encrypted, which needs --auth keystone, --openstack-lookups real and keel's age identity.", uuid)
}

// rotateCredentialChange is the cluster change of a rotation: the
// credential itself is written by repo.RotateCredential.
func rotateCredentialChange(cred *intent.ClusterCredential) clusterChange {
	return func(sn *gitstore.Snapshot, st *intent.ClusterState, _ **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
		// A cluster without key material (created before keel generated
		// CAs) has no rendered Secrets the credential could go into.
		if !sn.Exists(intent.PKIPath(st.Dir)) {
			return "", "", nil, &apierr.Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf(
				"Cannot rotate the credential of cluster %s: it has no secrets in keel's repository (it was created before keel generated them), so its clouds.yaml is keel's configured credential.", st.Cluster.UUID)}
		}
		st.Cluster.UpdatedAt = intent.Ptr(now())
		return "rotate the application credential (now " + cred.ID + ")", status.OpRotateCredential, nil, nil
	}
}

// holdsCredential reports whether HEAD's credential of the cluster folder
// dir is id: the commit can fail after it was made (projecting it into the
// read model), and a committed credential is kept.
func (s *Server) holdsCredential(dir, id string) bool {
	sn, err := s.cfg.Store.SnapshotHead()
	if err != nil || s.cfg.Secrets == nil {
		return true // unknown: keeping a credential is the safe mistake
	}
	c, err := repo.LoadCredential(sn, dir, s.cfg.Secrets.Keyring)
	if err != nil {
		return true
	}
	return c != nil && c.ID == id
}
