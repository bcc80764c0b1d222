package lightapi

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var errStale = errors.New("the object has been modified; please apply your changes to the latest version and try again")

func errNamespaceTerminating(ns string) error {
	return fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns)
}

// deleteLocked deletes cur, or only marks it deleting while it has
// finalizers. Deletion is immediate otherwise: there is no kubelet to
// confirm a pod's graceful termination.
func (s *Store) deleteLocked(r *resource, cur *object, pre *metav1.Preconditions, dry bool) (*object, bool, error) {
	u := cur.decode()
	if err := checkPreconditions(r, u, pre); err != nil {
		return nil, false, err
	}
	if u.GetDeletionTimestamp() == nil {
		u.Object["metadata"].(map[string]any)["deletionTimestamp"] = now()
		u.Object["metadata"].(map[string]any)["deletionGracePeriodSeconds"] = int64(0)
	}
	if r.gr() == "/namespaces" && !dry {
		return s.deleteNamespaceLocked(r, cur, u)
	}
	if len(u.GetFinalizers()) == 0 {
		o, err := s.removeLocked(r, cur, u, dry)
		return o, true, err
	}
	o, err := s.markDeleting(r, cur, u, dry)
	return o, false, err
}

func checkPreconditions(r *resource, u *unstructured.Unstructured, pre *metav1.Preconditions) error {
	if pre == nil {
		return nil
	}
	if pre.UID != nil && *pre.UID != u.GetUID() {
		return apierrors.NewConflict(qualified(r), u.GetName(), fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, u.GetUID()))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != u.GetResourceVersion() {
		return apierrors.NewConflict(qualified(r), u.GetName(), fmt.Errorf("precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, u.GetResourceVersion()))
	}
	return nil
}

func (s *Store) markDeleting(r *resource, cur *object, u *unstructured.Unstructured, dry bool) (*object, error) {
	if cur.metadata().GetDeletionTimestamp() != nil || dry {
		return cur, nil
	}
	u.SetResourceVersion(s.nextRV())
	o, err := newObject(u)
	if err != nil {
		return nil, err
	}
	s.record(r, u.GetNamespace(), u.GetName(), "MODIFIED", o)
	return o, nil
}

// removeLocked takes u (cur's last state) out of the store.
func (s *Store) removeLocked(r *resource, cur *object, u *unstructured.Unstructured, dry bool) (*object, error) {
	if dry {
		return cur, nil
	}
	u.SetResourceVersion(s.nextRV())
	o, err := newObject(u)
	if err != nil {
		return nil, err
	}
	o.free() // only watch history keeps it
	s.record(r, u.GetNamespace(), u.GetName(), "DELETED", o)
	s.crdRemoved(r, u)
	if r.namespaced {
		s.finishNamespace(u.GetNamespace())
	}
	return o, nil
}

// deleteNamespaceLocked marks the namespace Terminating, deletes what it
// holds (objects with finalizers stay until those are removed) and removes
// it once empty: the namespace controller's work, done at once.
func (s *Store) deleteNamespaceLocked(r *resource, cur *object, u *unstructured.Unstructured) (*object, bool, error) {
	if cur.metadata().GetDeletionTimestamp() == nil {
		u.Object["status"] = map[string]any{"phase": "Terminating"}
		o, err := s.markDeleting(r, cur, u, false)
		if err != nil {
			return nil, false, err
		}
		cur = o
	}
	for _, c := range s.inNamespace(u.GetName()) {
		if _, _, err := s.deleteLocked(c.r, c.o, nil, false); err != nil {
			return nil, false, err
		}
	}
	s.finishNamespace(u.GetName())
	if o := s.get("/namespaces", "", u.GetName()); o != nil {
		return o, false, nil
	}
	return cur, true, nil
}

// finishNamespace removes a deleting namespace that became empty.
func (s *Store) finishNamespace(ns string) {
	cur := s.get("/namespaces", "", ns)
	if cur == nil {
		return
	}
	u := cur.decode()
	if s.removable(builtinByGR["/namespaces"], u) {
		_, _ = s.removeLocked(builtinByGR["/namespaces"], cur, u, false) // an empty namespace: nothing can refuse
	}
}

type stored struct {
	r *resource
	o *object
}

func (s *Store) inNamespace(ns string) []stored {
	var out []stored
	for gr, objs := range s.objs {
		r := s.resourceByGR(gr)
		if r == nil || !r.namespaced {
			continue
		}
		for k, o := range objs {
			if strings.HasPrefix(k, ns+"/") {
				out = append(out, stored{r, o})
			}
		}
	}
	return out
}
