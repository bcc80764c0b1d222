package lightapi

import (
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	for path, want := range map[string]reqPath{
		"/api":                                      {legacy: true},
		"/api/v1":                                   {legacy: true, version: "v1"},
		"/apis":                                     {},
		"/apis/apps":                                {group: "apps"},
		"/apis/apps/v1":                             {group: "apps", version: "v1"},
		"/api/v1/nodes":                             {legacy: true, version: "v1", resource: "nodes"},
		"/api/v1/nodes/n1/status":                   {legacy: true, version: "v1", resource: "nodes", name: "n1", sub: "status"},
		"/api/v1/namespaces":                        {legacy: true, version: "v1", resource: "namespaces"},
		"/api/v1/namespaces/kube-system":            {legacy: true, version: "v1", resource: "namespaces", name: "kube-system"},
		"/api/v1/namespaces/kube-system/status":     {legacy: true, version: "v1", resource: "namespaces", name: "kube-system", sub: "status"},
		"/api/v1/namespaces/kube-system/pods":       {legacy: true, version: "v1", namespace: "kube-system", resource: "pods"},
		"/api/v1/namespaces/d/pods/p/eviction":      {legacy: true, version: "v1", namespace: "d", resource: "pods", name: "p", sub: "eviction"},
		"/apis/apps/v1/namespaces/d/deployments/x/": {group: "apps", version: "v1", namespace: "d", resource: "deployments", name: "x"},
		"/api/v1/watch/namespaces/d/configmaps":     {legacy: true, version: "v1", namespace: "d", resource: "configmaps", watch: true},
		"/apis/example.com/v1/widgets":              {group: "example.com", version: "v1", resource: "widgets"},
	} {
		got, err := parsePath(path)
		if err != nil || got != want {
			t.Errorf("%s: got %+v %v, want %+v", path, got, err, want)
		}
	}
	for _, bad := range []string{"/", "/foo", "/api/v1/namespaces/d/pods/p/log/x", "/api//pods", "/api/v1/watch", "/apis/a/v1/pods/p/s/t"} {
		if rp, err := parsePath(bad); err == nil {
			t.Errorf("%s parsed as %+v", bad, rp)
		}
	}
}

// format is the path a parsed path stands for.
func (rp reqPath) format() string {
	segs := []string{"apis", rp.group}
	if rp.legacy {
		segs = []string{"api"}
	}
	if rp.version == "" {
		return "/" + strings.Join(trim(segs), "/")
	}
	segs = append(segs, rp.version)
	if rp.watch {
		segs = append(segs, "watch")
	}
	if rp.namespace != "" {
		segs = append(segs, "namespaces", rp.namespace)
	}
	return "/" + strings.Join(trim(append(segs, rp.resource, rp.name, rp.sub)), "/")
}

func trim(segs []string) []string {
	for len(segs) > 0 && segs[len(segs)-1] == "" {
		segs = segs[:len(segs)-1]
	}
	return segs
}

// A parsed path formats back to a path that parses the same: nothing in
// a path is dropped or misread.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"/api/v1/namespaces/d/pods/p/eviction", "/apis/apps/v1/deployments", "/api/v1/namespaces/x/status", "/apis/g", "/api/v1/watch/nodes"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		rp, err := parsePath(path)
		if err != nil {
			return
		}
		again, err := parsePath(rp.format())
		if err != nil || again != rp {
			t.Fatalf("%q parsed as %+v, formatted as %q, parsed again as %+v (%v)", path, rp, rp.format(), again, err)
		}
	})
}
