package lightapi

import (
	"reflect"
	"time"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func newUnstructured(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

func qualified(r *resource) schema.GroupResource {
	return schema.GroupResource{Group: r.group, Resource: r.name}
}

// createLocked stores u as a new object; dry validates only.
func (s *Store) createLocked(r *resource, u *unstructured.Unstructured, dry bool) (*object, error) {
	if err := s.namespaceAccepts(r, u.GetNamespace()); err != nil {
		return nil, err
	}
	if u.GetName() == "" && u.GetGenerateName() != "" {
		u.SetName(u.GetGenerateName() + uuid.NewString()[:5])
	}
	if s.get(r.gr(), u.GetNamespace(), u.GetName()) != nil {
		return nil, apierrors.NewAlreadyExists(qualified(r), u.GetName())
	}
	u.SetUID(types.UID(uuid.NewString()))
	u.Object["metadata"].(map[string]any)["creationTimestamp"] = now()
	u.SetGeneration(1)
	unstructured.RemoveNestedField(u.Object, "metadata", "deletionTimestamp")
	if r.gr() == crdGR {
		acceptCRD(u)
	}
	if dry {
		return newDryObject(u)
	}
	u.SetResourceVersion(s.nextRV())
	o, err := newObject(u)
	if err != nil {
		return nil, err
	}
	s.record(r, u.GetNamespace(), u.GetName(), "ADDED", o)
	s.crdChanged(r, u)
	return o, nil
}

// namespaceAccepts answers as a real server does for an object created in
// a namespace that is missing (NotFound) or being deleted (Forbidden).
func (s *Store) namespaceAccepts(r *resource, ns string) error {
	if !r.namespaced {
		return nil
	}
	o := s.get("/namespaces", "", ns)
	if o == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, ns)
	}
	if o.metadata().GetDeletionTimestamp() != nil {
		return apierrors.NewForbidden(qualified(r), "", errNamespaceTerminating(ns))
	}
	return nil
}

// updateLocked replaces cur (decoded: old) by next as PUT, PATCH and
// apply do; sub is "status" for the status subresource.
func (s *Store) updateLocked(r *resource, cur *object, old, next *unstructured.Unstructured, sub string, dry bool) (*object, error) {
	if rv := next.GetResourceVersion(); rv != "" && rv != old.GetResourceVersion() {
		return nil, apierrors.NewConflict(qualified(r), old.GetName(), errStale)
	}
	next = s.merged(r, old, next, sub)
	if s.removable(r, next) {
		return s.removeLocked(r, cur, next, dry)
	}
	if r.gr() == crdGR {
		acceptCRD(next)
	}
	o, err := newObject(next)
	if err != nil {
		return nil, err
	}
	same := sameObject(o, cur)
	o.free()
	if same {
		return cur, nil // a no-op write keeps the version, as on a real server
	}
	if dry {
		return o, nil
	}
	next.SetResourceVersion(s.nextRV())
	if o, err = newObject(next); err != nil {
		return nil, err
	}
	s.record(r, old.GetNamespace(), old.GetName(), "MODIFIED", o)
	s.crdChanged(r, next)
	return o, nil
}

// merged is next with what a write may not change taken from old: the
// identity and lifecycle metadata, and status or everything but status
// depending on the subresource written.
func (s *Store) merged(r *resource, old, next *unstructured.Unstructured, sub string) *unstructured.Unstructured {
	if sub == "status" {
		out := old.DeepCopy()
		out.Object["status"] = next.Object["status"]
		next = out
	} else if r.hasStatus {
		next.Object["status"] = old.Object["status"]
	}
	if next.Object["status"] == nil {
		delete(next.Object, "status")
	}
	meta := next.Object["metadata"].(map[string]any)
	oldMeta := old.Object["metadata"].(map[string]any)
	for _, f := range []string{"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		if v, ok := oldMeta[f]; ok {
			meta[f] = v
		} else {
			delete(meta, f)
		}
	}
	meta["resourceVersion"] = oldMeta["resourceVersion"]
	gen := old.GetGeneration()
	if specChanged(old, next) {
		gen++
	}
	next.SetGeneration(gen)
	return next
}

// specChanged reports a change outside metadata and status, which is
// what bumps metadata.generation.
func specChanged(a, b *unstructured.Unstructured) bool {
	strip := func(u *unstructured.Unstructured) map[string]any {
		m := make(map[string]any, len(u.Object))
		for k, v := range u.Object {
			if k != "metadata" && k != "status" {
				m[k] = v
			}
		}
		return m
	}
	return !reflect.DeepEqual(strip(a), strip(b))
}

func sameObject(a, b *object) bool {
	return a.body == b.body && string(a.meta) == string(b.meta) && string(a.status) == string(b.status)
}

// removable: a deleting object whose last finalizer is gone goes away (a
// namespace once it is empty too).
func (s *Store) removable(r *resource, u *unstructured.Unstructured) bool {
	if u.GetDeletionTimestamp() == nil || len(u.GetFinalizers()) > 0 {
		return false
	}
	return r.gr() != "/namespaces" || len(s.inNamespace(u.GetName())) == 0
}

// newDryObject is the answer to a dryRun write: never stored, so its body
// is not interned.
func newDryObject(u *unstructured.Unstructured) (*object, error) {
	o, err := newObject(u)
	if err == nil {
		o.free()
	}
	return o, err
}
