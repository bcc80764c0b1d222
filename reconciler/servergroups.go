package reconciler

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/intent"
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
	secrets, err := r.liveSecrets(ctx, objs)
	if err != nil {
		return err
	}
	for _, s := range secrets {
		ids := s.Annotations[intent.AnnotationServerGroupIDs]
		if ids == "" {
			continue
		}
		for _, id := range strings.Split(ids, ",") {
			res := cloudResource{key: "server-group/" + id, noun: "server group", id: id, service: "Nova",
				label: "Server group " + id, attrs: []any{"server_group_id", id},
				deleted: ReasonServerGroupDeleted, notDeleted: ReasonServerGroupNotDeleted}
			if err := r.release(ctx, &s, res, func(ctx context.Context) error {
				return r.o.ServerGroups.DeleteServerGroup(ctx, id)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
