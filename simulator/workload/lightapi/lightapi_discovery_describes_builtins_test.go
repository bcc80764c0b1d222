package lightapi

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// client-go asks for aggregated discovery and falls back to the plain
// documents served; controller-runtime's RESTMapper is built on them.
func TestDiscoveryDescribesBuiltins(t *testing.T) {
	srv := newServer(t)
	dc, err := discovery.NewDiscoveryClientForConfig(srv.cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]metav1.APIResource{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			found[l.GroupVersion+" "+r.Name] = r
		}
	}
	for key, want := range map[string]struct {
		kind       string
		namespaced bool
		short      string
	}{
		"v1 pods":            {"Pod", true, "po"},
		"v1 nodes":           {"Node", false, "no"},
		"apps/v1 daemonsets": {"DaemonSet", true, "ds"},
		"apiextensions.k8s.io/v1 customresourcedefinitions": {"CustomResourceDefinition", false, "crd"},
		"v1 pods/eviction": {"Eviction", true, ""},
		"v1 nodes/status":  {"Node", false, ""},
	} {
		r, ok := found[key]
		if !ok || r.Kind != want.kind || r.Namespaced != want.namespaced || want.short != "" && (len(r.ShortNames) == 0 || r.ShortNames[0] != want.short) {
			t.Errorf("%s: %+v (found %v)", key, r, ok)
		}
	}
	hc, err := rest.HTTPClientFor(srv.cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(srv.cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapper.RESTMapping(schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"})
	if err != nil || m.Resource.Resource != "clusterrolebindings" || m.Scope.Name() != "root" {
		t.Fatalf("mapping of ClusterRoleBinding: %+v %v", m, err)
	}
}
