package reconciler

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
)

// CredentialDeleter deletes a cluster's Keystone application credential
// as keel's service user (openstack.Client). A credential already gone is
// not an error; a refusal is an *openstack.ForbiddenError.
type CredentialDeleter interface {
	DeleteApplicationCredential(ctx context.Context, userID, id string) error
}

// Reasons of the teardown's credential Events.
const (
	ReasonCredentialDeleted    = "ApplicationCredentialDeleted"
	ReasonCredentialNotDeleted = "ApplicationCredentialNotDeleted"
)

const (
	defaultCredentialAttempts = 5
	credentialTimeout         = 15 * time.Second
)

// releaseCredentials deletes in Keystone the application credentials named
// by the cloud-config Secrets among objs, read from the management cluster
// just before the Secrets are deleted: once the folder left Git, the
// Secret in the cluster is the last copy of the credential's ID and owner.
//
// Keystone failing is retried with the folder's backoff (an error), at
// most CredentialAttempts times; then, or at once when Keystone refuses
// (403: the service user lacks the admin role Keystone's default policy
// asks for), a warning Event is recorded and the teardown goes on, leaving
// the credential in Keystone: a cluster's deletion never waits for
// Keystone for long, and the reference driver ignores Forbidden too.
func (r *Reconciler) releaseCredentials(ctx context.Context, objs []*unstructured.Unstructured) error {
	if r.o.Credentials == nil {
		return nil
	}
	for _, o := range objs {
		if o.GetKind() != "Secret" || o.GroupVersionKind().Group != "" {
			continue
		}
		var s corev1.Secret
		err := r.client.Get(ctx, client.ObjectKeyFromObject(o), &s)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		id, user := s.Annotations[intent.AnnotationAppCredentialID], s.Annotations[intent.AnnotationAppCredentialUserID]
		if id == "" {
			continue // the configured (or placeholder) credential: not the cluster's
		}
		actx, cancel := context.WithTimeout(ctx, credentialTimeout)
		err = r.o.Credentials.DeleteApplicationCredential(actx, user, id)
		cancel()
		var fb *openstack.ForbiddenError
		switch {
		case err == nil:
			delete(r.credAttempts, id)
			r.o.Log.Info("deleted the cluster's application credential", "secret", s.Name, "application_credential_id", id)
			r.event(&s, corev1.EventTypeNormal, ReasonCredentialDeleted, "Deleted application credential "+id+" in Keystone")
		case errors.As(err, &fb):
			r.leaveCredential(&s, id, user, "Keystone refused to delete it (the service user needs the admin role)", err)
		default:
			r.credAttempts[id]++
			if n := r.credAttempts[id]; n < r.o.CredentialAttempts {
				return fmt.Errorf("deleting application credential %s (attempt %d of %d): %w", id, n, r.o.CredentialAttempts, err)
			}
			r.leaveCredential(&s, id, user, fmt.Sprintf("Keystone failed %d times", r.o.CredentialAttempts), err)
		}
	}
	return nil
}

// leaveCredential gives up on deleting a credential, loudly.
func (r *Reconciler) leaveCredential(s *corev1.Secret, id, user, why string, err error) {
	delete(r.credAttempts, id)
	msg := fmt.Sprintf("Application credential %s of user %s is left in Keystone: %s: %v. Delete it by hand.", id, user, why, err)
	r.o.Log.Warn("application credential not deleted", "secret", s.Name, "application_credential_id", id, "user_id", user, "err", err)
	r.event(s, corev1.EventTypeWarning, ReasonCredentialNotDeleted, msg)
}

func (r *Reconciler) event(s *corev1.Secret, typ, reason, msg string) {
	if r.o.Recorder != nil {
		ref := s.DeepCopy()
		ref.APIVersion, ref.Kind = "v1", "Secret"
		r.o.Recorder.Event(ref, typ, reason, msg)
	}
}
