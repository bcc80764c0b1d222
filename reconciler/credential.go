package reconciler

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	secrets, err := r.liveSecrets(ctx, objs)
	if err != nil {
		return err
	}
	for _, s := range secrets {
		for _, ref := range r.credentialsOf(&s) {
			if err := r.releaseCredential(ctx, &s, ref, "application credential"); err != nil {
				return err
			}
		}
	}
	return nil
}

// releaseCredential deletes the credential ref in Keystone by release's
// rules; noun names it in logs and Events ("retired application
// credential" for one a rotation replaced).
func (r *Reconciler) releaseCredential(ctx context.Context, s *corev1.Secret, ref intent.CredentialRef, noun string) error {
	res := cloudResource{key: ref.ID, noun: noun, id: ref.ID, service: "Keystone",
		label:   fmt.Sprintf("%s%s %s of user %s", strings.ToUpper(noun[:1]), noun[1:], ref.ID, ref.UserID),
		attrs:   []any{"application_credential_id", ref.ID, "user_id", ref.UserID},
		deleted: ReasonCredentialDeleted, notDeleted: ReasonCredentialNotDeleted}
	return r.release(ctx, s, res, func(ctx context.Context) error {
		return r.o.Credentials.DeleteApplicationCredential(ctx, ref.UserID, ref.ID)
	})
}

// credentialsOf are the cluster's credentials a cloud-config Secret names:
// the credentials a rotation retired (still in Keystone while a consumer
// might use them), then the current one. None for the configured (or
// placeholder) credential, which is not the cluster's.
func (r *Reconciler) credentialsOf(s *corev1.Secret) []intent.CredentialRef {
	refs, err := intent.ParseCredentialRefs(s.Annotations[intent.AnnotationRetiredAppCredentials])
	if err != nil {
		// Hand-edited: the current credential is still the cluster's.
		r.o.Log.Warn("ignoring the retired application credentials of a cloud-config Secret", "secret", s.Name, "err", err)
		refs = nil
	}
	if id := s.Annotations[intent.AnnotationAppCredentialID]; id != "" {
		refs = append(refs, intent.CredentialRef{ID: id, UserID: s.Annotations[intent.AnnotationAppCredentialUserID]})
	}
	return refs
}

// liveSecrets reads from the management cluster the core Secrets among
// objs that still exist there.
func (r *Reconciler) liveSecrets(ctx context.Context, objs []*unstructured.Unstructured) ([]corev1.Secret, error) {
	var out []corev1.Secret
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
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// cloudResource is an OpenStack resource a cluster's teardown deletes.
type cloudResource struct {
	key     string // in credAttempts
	noun    string // "application credential"
	id      string
	service string // the OpenStack service that holds it: "Keystone"
	label   string // what a warning calls it: "Application credential <id> of user <user>"
	attrs   []any  // its log attributes
	// The Events' reasons.
	deleted, notDeleted string
}

// release deletes res with del, by the rules of a teardown's OpenStack
// resources: the service failing is an error (the folder's backoff retries
// it) at most CredentialAttempts times; then, or at once when the service
// refuses (403), a warning Event is recorded and the teardown goes on,
// leaving the resource.
func (r *Reconciler) release(ctx context.Context, s *corev1.Secret, res cloudResource, del func(context.Context) error) error {
	actx, cancel := context.WithTimeout(ctx, credentialTimeout)
	err := del(actx)
	cancel()
	var fb *openstack.ForbiddenError
	switch {
	case err == nil:
		r.credAttempts.delete(res.key)
		r.o.Log.Info("deleted the cluster's "+res.noun, append([]any{"secret", s.Name}, res.attrs...)...)
		r.event(s, corev1.EventTypeNormal, res.deleted, "Deleted "+res.noun+" "+res.id+" in "+res.service)
	case errors.As(err, &fb):
		r.leave(s, res, res.service+" refused to delete it (the service user needs the admin role)", err)
	default:
		if n := r.credAttempts.update(res.key, func(n int) int { return n + 1 }); n < r.o.CredentialAttempts {
			return fmt.Errorf("deleting %s %s (attempt %d of %d): %w", res.noun, res.id, n, r.o.CredentialAttempts, err)
		}
		r.leave(s, res, fmt.Sprintf("%s failed %d times", res.service, r.o.CredentialAttempts), err)
	}
	return nil
}

// leave gives up on deleting a resource, loudly.
func (r *Reconciler) leave(s *corev1.Secret, res cloudResource, why string, err error) {
	r.credAttempts.delete(res.key)
	msg := fmt.Sprintf("%s is left in %s: %s: %v. Delete it by hand.", res.label, res.service, why, err)
	r.o.Log.Warn(res.noun+" not deleted", append(append([]any{"secret", s.Name}, res.attrs...), "err", err)...)
	r.event(s, corev1.EventTypeWarning, res.notDeleted, msg)
}

func (r *Reconciler) event(s *corev1.Secret, typ, reason, msg string) {
	if r.o.Recorder != nil {
		ref := s.DeepCopy()
		ref.APIVersion, ref.Kind = "v1", "Secret"
		r.o.Recorder.Event(ref, typ, reason, msg)
	}
}
