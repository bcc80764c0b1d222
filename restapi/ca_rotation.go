package restapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/write"
	"github.com/openkeel/keel/status"
)

// CA rotation (PATCH /v1/certificates, docs/secrets.md "Rotating the
// certificate authority"): the request commits the first phase; each next
// phase is committed by AdvanceCARotations once the last one rolled out to
// every machine (status.Result.Advance), on the leader.

// caRotateMicroversion is the version Magnum's API reference gives CA
// rotation; Magnum does not enforce it, keel does (docs/api.md).
const caRotateMicroversion = 5

// caRotatable refuses a rotation the cluster cannot take now, in Magnum's
// order (TLS, status) and then keel's (its key material, its class).
func (s *Server) caRotatable(ctx context.Context, v *readmodel.ClusterView, mv Version) error {
	if !mv.AtLeast(caRotateMicroversion) {
		return apierr.BadRequest("Rotating the CA certificate needs API microversion 1.%d or later (this request is at %s): send OpenStack-API-Version: container-infra 1.%d.",
			caRotateMicroversion, mv, caRotateMicroversion)
	}
	if tmpl, err := s.cfg.DB.GetTemplateByUUID(ctx, v.ClusterTemplateID); err == nil && tmpl != nil && tmpl.TLSDisabled {
		return apierr.BadRequest("Rotating the CA certificate on a non-TLS cluster is not supported")
	}
	if err := notReadOnly(&v.Cluster); err != nil {
		return err
	}
	if v.CARotation.InProgress() {
		return errRotatingCA(v.Name, v.CARotation)
	}
	if st := v.Result.Status; !strings.HasSuffix(st, "_COMPLETE") || strings.HasPrefix(st, "DELETE") {
		return apierr.BadRequest("Rotating the CA certificate of a cluster in status %s is not supported: wait until it is CREATE_COMPLETE or UPDATE_COMPLETE.", st)
	}
	if v.OnAdoptedClass() {
		return apierr.BadRequest("Cluster %s still runs on ClusterClass %s, which it was adopted with from %s, and keel cannot roll its machines onto a new CA: "+
			"upgrade the cluster first (openstack coe cluster upgrade), which moves it onto keel's ClusterClass.", v.Name, v.Adopted.Class, v.Adopted.From)
	}
	return nil
}

// errRotatingCA refuses a change while a CA rotation runs: each phase
// must roll out before the next, and another change's rollout would mix
// with it.
func errRotatingCA(name string, r *intent.CARotation) error {
	return apierr.BadRequest("Cluster %s is rotating its certificate authority (phase %d of %d, %s): wait until it is UPDATE_COMPLETE.",
		name, r.PhaseNumber(), len(intent.CAPhases), r.Phase)
}

// startCARotation commits the first phase of a rotation.
func (s *Server) startCARotation(ctx context.Context, who requester, v *readmodel.ClusterView) error {
	if s.cfg.Secrets == nil || s.cfg.Secrets.Keyring == nil {
		return apierr.BadRequest("Cannot rotate the CA of cluster %s: keel keeps the new CA's key encrypted in Git, which needs keel's age identity.", v.UUID)
	}
	_, err := s.mutateClusterWith(ctx, who, v.Dir, caPhaseChange(""), nil)
	return err
}

// caPhaseChange moves a cluster's CA rotation from phase from ("": none
// in progress) to the next; it changes nothing when the rotation is no
// longer at from (another replica, or an earlier pass, moved it).
func caPhaseChange(from string) clusterChange {
	return func(sn *gitstore.Snapshot, st *intent.ClusterState, _ **intent.ClusterTemplate) (string, string, []gitstore.Change, error) {
		next, err := nextCARotation(st, from)
		if err != nil || next == nil {
			return "", "", nil, err
		}
		if !sn.Exists(intent.PKIPath(st.Dir)) {
			return "", "", nil, &apierr.Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf(
				"Cannot rotate the CA of cluster %s: its CAs are not in keel's repository (Cluster API made them before keel managed the cluster).", st.Cluster.UUID)}
		}
		st.Cluster.CARotation = next
		st.Cluster.UpdatedAt = intent.Ptr(now())
		return fmt.Sprintf("rotate the certificate authority, phase %d of %d (%s)", next.PhaseNumber(), len(intent.CAPhases), next.Phase),
			status.OpRotateCA, nil, nil
	}
}

// nextCARotation is the rotation record after phase from, nil when the
// cluster is not at from any more.
func nextCARotation(st *intent.ClusterState, from string) (*intent.CARotation, error) {
	r := st.Cluster.CARotation
	if from == "" {
		if r.InProgress() {
			return nil, errRotatingCA(st.Cluster.Name, r)
		}
		gen := int64(1)
		if r != nil {
			gen = r.Generation + 1
		}
		return &intent.CARotation{Generation: gen, Phase: intent.CAPhaseTrust}, nil
	}
	if r == nil || r.Phase != from || r.Next() == "" {
		return nil, nil
	}
	return &intent.CARotation{Generation: r.Generation, Phase: r.Next()}, nil
}

// AdvanceCARotations commits the next phase of every CA rotation whose
// phase rolled out everywhere. It runs on the leader after each status
// change; a phase committed twice is impossible (caPhaseChange is a no-op
// once the cluster moved on).
func (s *Server) AdvanceCARotations(ctx context.Context) error {
	vs, err := s.cfg.DB.ClustersRotatingCA(ctx)
	if err != nil {
		return err
	}
	for _, v := range vs {
		if !v.Result.Advance {
			continue
		}
		who := requester{Caller: write.Caller{UserID: "keel", UserName: "keel", ProjectID: v.ProjectID,
			Request: "ca-rotation " + v.UUID, Log: s.cfg.Log}}
		if _, err := s.mutateClusterWith(ctx, who, v.Dir, caPhaseChange(v.CARotation.Phase), nil); err != nil {
			who.Log.Warn("CA rotation: committing the next phase failed; retried", "cluster", v.UUID, "phase", v.CARotation.Phase, "err", err)
		}
	}
	return nil
}

// RunCARotations advances CA rotations every interval until ctx is done
// (a phase rolls out in minutes: polling the few clusters whose last
// operation is a rotation costs one indexed query).
func (s *Server) RunCARotations(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := s.AdvanceCARotations(ctx); err != nil && ctx.Err() == nil {
				s.cfg.Log.Warn("CA rotation: listing the rotating clusters failed; retried", "err", err)
			}
		}
	}
}
