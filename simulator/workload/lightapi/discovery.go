package lightapi

import (
	"net/http"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// discovery answers the unaggregated documents only, as application/json:
// client-go asks for aggregated discovery first and falls back to these
// when the content type says they are what it got.
func (h *handler) discovery(w http.ResponseWriter, r *http.Request, rp reqPath) {
	if r.Method != http.MethodGet {
		writeError(w, apierrors.NewMethodNotSupported(schema.GroupResource{}, r.Method))
		return
	}
	groups := h.s.groups()
	switch {
	case rp.legacy && rp.version == "":
		writeJSON(w, http.StatusOK, &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: []string{"v1"}, ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}})
	case !rp.legacy && rp.group == "":
		list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
		for _, g := range groups[1:] {
			list.Groups = append(list.Groups, g.apiGroup())
		}
		writeJSON(w, http.StatusOK, list)
	case rp.version == "":
		h.groupDoc(w, groups, rp.group)
	default:
		h.resourceList(w, groups, rp.group, rp.version)
	}
}

func (h *handler) groupDoc(w http.ResponseWriter, groups []group, name string) {
	for _, g := range groups {
		if g.name == name {
			doc := g.apiGroup()
			doc.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			writeJSON(w, http.StatusOK, &doc)
			return
		}
	}
	writeError(w, apierrors.NewNotFound(schema.GroupResource{}, ""))
}

func (h *handler) resourceList(w http.ResponseWriter, groups []group, name, version string) {
	for _, g := range groups {
		if g.name != name {
			continue
		}
		if rs, ok := g.versions[version]; ok {
			gv := schema.GroupVersion{Group: name, Version: version}.String()
			list := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv}
			for _, r := range rs {
				list.APIResources = append(list.APIResources, r.apiResources()...)
			}
			writeJSON(w, http.StatusOK, list)
			return
		}
	}
	writeError(w, apierrors.NewNotFound(schema.GroupResource{}, ""))
}

var allVerbs = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

func (r *resource) apiResources() []metav1.APIResource {
	out := []metav1.APIResource{{Name: r.name, SingularName: r.singular, Namespaced: r.namespaced,
		Kind: r.kind, Verbs: allVerbs, ShortNames: r.shortNames}}
	if r.hasStatus {
		out = append(out, metav1.APIResource{Name: r.name + "/status", Namespaced: r.namespaced, Kind: r.kind, Verbs: metav1.Verbs{"get", "patch", "update"}})
	}
	if r.gr() == "/pods" {
		out = append(out, metav1.APIResource{Name: "pods/eviction", Namespaced: true, Group: "policy", Version: "v1", Kind: "Eviction", Verbs: metav1.Verbs{"create"}})
	}
	return out
}

// group is one API group with its resources by version; groups()[0] is
// the core group.
type group struct {
	name      string
	preferred string
	versions  map[string][]*resource
}

func (g group) apiGroup() metav1.APIGroup {
	doc := metav1.APIGroup{Name: g.name}
	vs := make([]string, 0, len(g.versions))
	for v := range g.versions {
		if v != g.preferred {
			vs = append(vs, v)
		}
	}
	sort.Strings(vs)
	for _, v := range append([]string{g.preferred}, vs...) {
		doc.Versions = append(doc.Versions, metav1.GroupVersionForDiscovery{GroupVersion: g.name + "/" + v, Version: v})
	}
	doc.PreferredVersion = doc.Versions[0]
	return doc
}

func (s *Store) groups() []group {
	s.mu.Lock()
	rs := append([]*resource{}, builtin...)
	var custom []*resource
	for _, r := range s.crds {
		custom = append(custom, r)
	}
	s.mu.Unlock()
	sort.Slice(custom, func(i, j int) bool { return custom[i].gr() < custom[j].gr() })
	out := []group{{name: "", preferred: "v1", versions: map[string][]*resource{}}}
	index := map[string]int{"": 0}
	for _, r := range append(rs, custom...) {
		i, ok := index[r.group]
		if !ok {
			i = len(out)
			index[r.group] = i
			out = append(out, group{name: r.group, preferred: r.version, versions: map[string][]*resource{}})
		}
		for _, v := range append([]string{r.version}, r.versions...) {
			out[i].versions[v] = append(out[i].versions[v], r)
		}
	}
	return out
}
