package restapi

import (
	"path"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// renderedVersion is the Kubernetes version of a cluster's rendered CAPI
// Cluster at HEAD.
func (a *testAPI) renderedVersion(uuid string) string {
	a.t.Helper()
	sn, err := a.store.SnapshotHead()
	if err != nil {
		a.t.Fatal(err)
	}
	data, err := sn.ReadFile(path.Join(intent.RenderedPath(a.loadState(uuid).Dir), "cluster.yaml"))
	if err != nil {
		a.t.Fatal(err)
	}
	var cl struct {
		Spec struct {
			Topology struct {
				Version string `json:"version"`
			} `json:"topology"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &cl); err != nil {
		a.t.Fatal(err)
	}
	return cl.Spec.Topology.Version
}

// A cluster whose template and labels lack kube_tag is created with the
// effective default (site.cue's, else the catalogue's) written into its
// labels and its nodegroups' labels, so Git names the concrete version; a
// later change of the default does not move it.
func TestClusterKubeTagDefaultIsPinned(t *testing.T) {
	catalogueDefault := schemas.Default().String(nil, schemas.LabelKubeTag)
	if catalogueDefault == "" {
		t.Fatal("the catalogue has no kube_tag default")
	}
	for _, tc := range []struct {
		name     string
		site     string
		template map[string]string
		body     map[string]any
		want     string
	}{
		{"template without kube_tag (gophercloud's acceptance helper)", "", map[string]string{"test": "test"}, nil, catalogueDefault},
		{"site default", `package schemas
site: defaults: kube_tag: "v1.34.4"
`, map[string]string{"test": "test"}, nil, "v1.34.4"},
		{"cluster labels replace the template's", "", map[string]string{"kube_tag": "v1.33.4"},
			map[string]any{"labels": map[string]string{"foo": "bar"}}, catalogueDefault},
		{"template's kube_tag", "", map[string]string{"kube_tag": "v1.33.4"}, nil, "v1.33.4"},
		{"cluster's kube_tag", "", map[string]string{"test": "test"},
			map[string]any{"labels": map[string]string{"kube_tag": "v1.34.1"}}, "v1.34.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAPI(t)
			if tc.site != "" {
				a.commitSite(tc.site)
			}
			tmpl := a.template(member, "k8s", tc.template)
			body := map[string]any{"name": "c1", "cluster_template_id": tmpl.UUID, "master_count": 1, "node_count": 1}
			for k, v := range tc.body {
				body[k] = v
			}
			before := a.commitCount()
			if r := a.do(member, "1.10", "POST", "/v1/clusters", body); r.status != 202 {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			if n := a.commitCount() - before; n != 1 {
				t.Fatalf("create made %d commits, want 1", n)
			}
			id := a.do(member, "1.10", "GET", "/v1/clusters/c1", nil).json(t)["uuid"].(string)
			st := a.loadState(id)
			if got := st.Cluster.Labels[schemas.LabelKubeTag]; got != tc.want {
				t.Fatalf("cluster.yaml kube_tag = %q, want %q (labels %v)", got, tc.want, st.Cluster.Labels)
			}
			for _, ng := range st.NodeGroups {
				if got := ng.Labels[schemas.LabelKubeTag]; got != tc.want {
					t.Errorf("nodegroup %s kube_tag = %q, want %q", ng.Name, got, tc.want)
				}
			}
			if got := a.renderedVersion(id); got != tc.want {
				t.Errorf("rendered topology.version = %q, want %q", got, tc.want)
			}
			labels, _ := a.do(member, "1.10", "GET", "/v1/clusters/c1", nil).json(t)["labels"].(map[string]any)
			if labels[schemas.LabelKubeTag] != tc.want {
				t.Errorf("GET labels = %v, want kube_tag %s", labels, tc.want)
			}

			// The default moves (a new keel release or site.cue): the
			// cluster keeps its version through a re-render.
			a.commitSite(`package schemas
site: defaults: kube_tag: "v1.36.3"
`)
			a.complete(id)
			if r := a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/resize", map[string]any{"node_count": 2}); r.status != 202 {
				t.Fatalf("resize: %d %s", r.status, r.body)
			}
			if got := a.loadState(id).Cluster.Labels[schemas.LabelKubeTag]; got != tc.want {
				t.Errorf("after the default moved, kube_tag = %q, want %q", got, tc.want)
			}
			if got := a.renderedVersion(id); got != tc.want {
				t.Errorf("after the default moved, rendered topology.version = %q, want %q", got, tc.want)
			}
		})
	}
}
