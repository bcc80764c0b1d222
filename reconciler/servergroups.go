package reconciler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
)

// ServerGroupDeleter deletes a cluster's Nova server groups as keel's
// service user (openstack.Client). A group already gone is not an error;
// a refusal is an *openstack.ForbiddenError.
type ServerGroupDeleter interface {
	DeleteServerGroup(ctx context.Context, id string) error
}

// Reasons of the teardown's server group Events.
const (
	ReasonServerGroupDeleted    = "ServerGroupDeleted"
	ReasonServerGroupNotDeleted = "ServerGroupNotDeleted"
)

// releaseServerGroups deletes in Nova the server groups named by the
// cloud-config Secrets among objs (intent.AnnotationServerGroupIDs), as
// releaseCredentials does the credentials and with its rules: once the
// CAPI Cluster is gone (its machines, the groups' members, with it), just
// before the Secret, the last copy of their IDs, is deleted; Nova failing
// is retried at most CredentialAttempts times, a refusal (403: the service
// user lacks the admin role to delete another project's group) gives up at
// once; giving up records a warning Event and leaves the group.
func (r *Reconciler) releaseServerGroups(ctx context.Context, objs []*unstructured.Unstructured) error {
	if r.o.ServerGroups == nil {
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
		ids := s.Annotations[intent.AnnotationServerGroupIDs]
		if ids == "" {
			continue
		}
		for _, id := range strings.Split(ids, ",") {
			key := "server-group/" + id
			actx, cancel := context.WithTimeout(ctx, credentialTimeout)
			err = r.o.ServerGroups.DeleteServerGroup(actx, id)
			cancel()
			var fb *openstack.ForbiddenError
			switch {
			case err == nil:
				delete(r.credAttempts, key)
				r.o.Log.Info("deleted the cluster's server group", "secret", s.Name, "server_group_id", id)
				r.event(&s, corev1.EventTypeNormal, ReasonServerGroupDeleted, "Deleted server group "+id+" in Nova")
			case errors.As(err, &fb):
				r.leaveServerGroup(&s, key, id, "Nova refused to delete it (the service user needs the admin role)", err)
			default:
				r.credAttempts[key]++
				if n := r.credAttempts[key]; n < r.o.CredentialAttempts {
					return fmt.Errorf("deleting server group %s (attempt %d of %d): %w", id, n, r.o.CredentialAttempts, err)
				}
				r.leaveServerGroup(&s, key, id, fmt.Sprintf("Nova failed %d times", r.o.CredentialAttempts), err)
			}
		}
	}
	return nil
}

// leaveServerGroup gives up on deleting a server group, loudly.
func (r *Reconciler) leaveServerGroup(s *corev1.Secret, key, id, why string, err error) {
	delete(r.credAttempts, key)
	msg := fmt.Sprintf("Server group %s is left in Nova: %s: %v. Delete it by hand.", id, why, err)
	r.o.Log.Warn("server group not deleted", "secret", s.Name, "server_group_id", id, "err", err)
	r.event(s, corev1.EventTypeWarning, ReasonServerGroupNotDeleted, msg)
}
