package lightapi

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

const crdGR = "apiextensions.k8s.io/customresourcedefinitions"

// resourceByGR finds a built-in or a CRD's resource.
func (s *Store) resourceByGR(gr string) *resource {
	if r := builtinByGR[gr]; r != nil {
		return r
	}
	return s.crds[gr]
}

// lookup finds the resource served at group/version/name.
func (s *Store) lookup(group, version, name string) *resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.resourceByGR(group + "/" + name)
	if r == nil || !r.serves(version) {
		return nil
	}
	return r
}

func toCRD(u *unstructured.Unstructured) (*apiextensionsv1.CustomResourceDefinition, bool) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd)
	return crd, err == nil
}

// acceptCRD sets the status a real server's CRD controllers set: names
// accepted, established, the storage version recorded.
func acceptCRD(u *unstructured.Unstructured) {
	crd, ok := toCRD(u)
	if !ok {
		return
	}
	conds := []any{}
	for _, t := range []string{"NamesAccepted", "Established"} {
		conds = append(conds, map[string]any{"type": t, "status": "True", "reason": reasons[t],
			"message": messages[t], "lastTransitionTime": conditionTime(u, t)})
	}
	names, _, _ := unstructured.NestedMap(u.Object, "spec", "names")
	stored, _, _ := unstructured.NestedStringSlice(u.Object, "status", "storedVersions")
	for _, v := range crd.Spec.Versions {
		if v.Storage && !contains(stored, v.Name) {
			stored = append(stored, v.Name)
		}
	}
	u.Object["status"] = map[string]any{"conditions": conds, "acceptedNames": names, "storedVersions": toAny(stored)}
}

var reasons = map[string]string{"NamesAccepted": "NoConflicts", "Established": "InitialNamesAccepted"}
var messages = map[string]string{"NamesAccepted": "no conflicts found", "Established": "the initial names have been accepted"}

// conditionTime keeps a condition's transition time across updates.
func conditionTime(u *unstructured.Unstructured, t string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == t && m["lastTransitionTime"] != nil {
			return m["lastTransitionTime"].(string)
		}
	}
	return now()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// crdChanged serves a created or updated CRD's resource.
func (s *Store) crdChanged(r *resource, u *unstructured.Unstructured) {
	if r.gr() != crdGR {
		return
	}
	crd, ok := toCRD(u)
	if !ok {
		return
	}
	if cr := crdResource(crd); cr != nil {
		s.crds[cr.gr()] = cr
	}
}

func crdResource(crd *apiextensionsv1.CustomResourceDefinition) *resource {
	cr := &resource{group: crd.Spec.Group, name: crd.Spec.Names.Plural, singular: crd.Spec.Names.Singular,
		kind: crd.Spec.Names.Kind, custom: true, shortNames: crd.Spec.Names.ShortNames,
		namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped}
	if cr.singular == "" {
		cr.singular = strings.ToLower(cr.kind)
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		if cr.version == "" || v.Storage {
			if cr.version != "" {
				cr.versions = append(cr.versions, cr.version)
			}
			cr.version = v.Name
		} else {
			cr.versions = append(cr.versions, v.Name)
		}
		cr.hasStatus = cr.hasStatus || v.Subresources != nil && v.Subresources.Status != nil
	}
	if cr.version == "" || cr.name == "" {
		return nil
	}
	return cr
}

// crdRemoved stops serving a deleted CRD's resource and deletes its
// objects, as the CRD's cleanup finalizer does.
func (s *Store) crdRemoved(r *resource, u *unstructured.Unstructured) {
	if r.gr() != crdGR {
		return
	}
	crd, ok := toCRD(u)
	if !ok {
		return
	}
	gr := crd.Spec.Group + "/" + crd.Spec.Names.Plural
	cr := s.crds[gr]
	if cr == nil {
		return
	}
	for _, o := range s.listLocked(gr, "") {
		m := o.metadata()
		s.nextRV()
		s.record(cr, m.GetNamespace(), m.GetName(), "DELETED", o)
	}
	delete(s.objs, gr)
	delete(s.crds, gr)
}
