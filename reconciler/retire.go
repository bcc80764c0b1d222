package reconciler

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// Retiring rotated credentials (docs/secrets.md, "Rotating the
// credential"): after applying a cluster whose cloud-config Secret lists
// retired application credentials, the reconciler deletes them in Keystone
// once its workload cluster's consumers use the current one: CAPO reads the
// applied Secret at once, the cloud controller manager and the CSI drivers
// once they restarted with the new cloud.conf (CredentialConsumers). Until
// then the cluster's rotation is in progress (Sink.Retiring), and the
// folder is looked at again with the backoff of a failure, without being
// one.

// errRetiring is a rotation still waiting: retried like a failure, but
// reported as progress.
type errRetiring struct{ reason string }

func (e errRetiring) Error() string { return e.reason }

// retire deletes the cluster's retired credentials once its consumers use
// the current one; reason is what it still waits for ("" when nothing),
// and ok whether the cluster has retired credentials at all.
func (r *Reconciler) retire(ctx context.Context, sn *gitstore.Snapshot, t target) (reason string, ok bool) {
	if r.o.Credentials == nil || r.o.Consumers == nil {
		return "", false
	}
	// A local read of Git spares the API a Secret read per apply of every
	// cluster never rotated.
	facts, err := intent.ReadFacts(sn, t.unit)
	if err != nil || facts.CredentialGeneration == 0 {
		return "", false
	}
	var s corev1.Secret
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: t.stackID + "-cloud-config"}, &s); err != nil {
		return "", false // none (the configured credential), or read again next time
	}
	refs := r.credentialsOf(&s)
	if len(refs) < 2 || s.Annotations[intent.AnnotationAppCredentialID] == "" {
		return "", false // never rotated
	}
	left := r.notRetired(t.id, refs[:len(refs)-1]) // the last is the current one
	if len(left) == 0 {
		return "", true
	}
	if why := r.consumersPending(ctx, t, refs[len(refs)-1].ID, facts.CredentialGeneration); why != "" {
		return "Rotating the application credential: " + why, true
	}
	for _, ref := range left {
		if err := r.releaseRetired(ctx, &s, t.id, ref); err != nil {
			return fmt.Sprintf("Rotating the application credential: deleting the retired credential %s failed and is retried: %v", ref.ID, err), true
		}
	}
	return "", true
}

// consumersPending asks the workload cluster whether its consumers use
// credential id at generation gen; an error is what is waited for.
func (r *Reconciler) consumersPending(ctx context.Context, t target, id string, gen int64) string {
	ctx, cancel := context.WithTimeout(ctx, credentialTimeout)
	defer cancel()
	why, err := r.o.Consumers.Pending(ctx, t.stackID, id, gen)
	if err != nil {
		return "waiting to reach the workload cluster to check that its cloud controller manager and CSI drivers use the new credential: " + err.Error()
	}
	return why
}

// releaseRetired deletes a retired credential by the teardown's rules
// (release): given up (refused, or failing too often) is done too, with a
// warning Event.
func (r *Reconciler) releaseRetired(ctx context.Context, s *corev1.Secret, id string, ref intent.CredentialRef) error {
	err := r.releaseCredential(ctx, s, ref, "retired application credential")
	if err == nil {
		r.retired.update(id, func(done []string) []string { return append(done, ref.ID) })
	}
	return err
}

// notRetired are the retired credentials of the cluster (inventory id)
// that this process has not deleted yet. What it deleted and the Secret no
// longer lists (a later rotation dropped it) is forgotten, so the record
// stays as small as the Secret's list.
func (r *Reconciler) notRetired(id string, retired []intent.CredentialRef) []intent.CredentialRef {
	var left []intent.CredentialRef
	r.retired.update(id, func(done []string) []string {
		var still []string
		for _, ref := range retired {
			if slices.Contains(done, ref.ID) {
				still = append(still, ref.ID)
			} else {
				left = append(left, ref)
			}
		}
		return still
	})
	return left
}

// isRetiring reports whether err is a rotation still waiting.
func isRetiring(err error) bool {
	var w errRetiring
	return errors.As(err, &w)
}
