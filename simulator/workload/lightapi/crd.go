package lightapi

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// crdSpec is what serving a CRD needs from it, read from the map: a
// conversion to the typed CRD would walk its whole schema, often hundreds
// of kilobytes.
type crdSpec struct {
	group, scope string
	names        map[string]any
	versions     []crdVersion
}

type crdVersion struct {
	name            string
	served, storage bool
	status          bool // subresources.status
}

func readCRD(u *unstructured.Unstructured) crdSpec {
	str := func(m map[string]any, f ...string) string { s, _, _ := unstructured.NestedString(m, f...); return s }
	c := crdSpec{group: str(u.Object, "spec", "group"), scope: str(u.Object, "spec", "scope")}
	c.names, _, _ = unstructured.NestedMap(u.Object, "spec", "names")
	vs, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	for _, v := range vs {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		served, _, _ := unstructured.NestedBool(m, "served")
		storage, _, _ := unstructured.NestedBool(m, "storage")
		_, status, _ := unstructured.NestedFieldNoCopy(m, "subresources", "status")
		c.versions = append(c.versions, crdVersion{name: str(m, "name"), served: served, storage: storage, status: status})
	}
	return c
}

func (c crdSpec) name(f string) string {
	s, _ := c.names[f].(string)
	return s
}

func (c crdSpec) shortNames() []string {
	s, _, _ := unstructured.NestedStringSlice(c.names, "shortNames")
	return s
}

// acceptCRD sets the status a real server's CRD controllers set: names
// accepted, established, the storage version recorded.
func acceptCRD(u *unstructured.Unstructured) {
	crd := readCRD(u)
	conds := []any{}
	for _, t := range []string{"NamesAccepted", "Established"} {
		conds = append(conds, map[string]any{"type": t, "status": "True", "reason": reasons[t],
			"message": messages[t], "lastTransitionTime": conditionTime(u, t)})
	}
	stored, _, _ := unstructured.NestedStringSlice(u.Object, "status", "storedVersions")
	for _, v := range crd.versions {
		if v.storage && !contains(stored, v.name) {
			stored = append(stored, v.name)
		}
	}
	u.Object["status"] = map[string]any{"conditions": conds, "acceptedNames": crd.names, "storedVersions": toAny(stored)}
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
	if cr := crdResource(readCRD(u)); cr != nil {
		s.crds[cr.gr()] = cr
	}
}

func crdResource(crd crdSpec) *resource {
	cr := &resource{group: crd.group, name: crd.name("plural"), singular: crd.name("singular"),
		kind: crd.name("kind"), custom: true, shortNames: crd.shortNames(), namespaced: crd.scope == "Namespaced"}
	if cr.singular == "" {
		cr.singular = strings.ToLower(cr.kind)
	}
	for _, v := range crd.versions {
		if !v.served {
			continue
		}
		if cr.version == "" || v.storage {
			if cr.version != "" {
				cr.versions = append(cr.versions, cr.version)
			}
			cr.version = v.name
		} else {
			cr.versions = append(cr.versions, v.name)
		}
		cr.hasStatus = cr.hasStatus || v.status
	}
	if cr.version == "" || cr.name == "" || cr.kind == "" {
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
	crd := readCRD(u)
	gr := crd.group + "/" + crd.name("plural")
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
