package restapi

import (
	"strings"
	"testing"

	"github.com/openkeel/keel/schemas"
)

// An upgrade to a template without kube_tag moves the cluster to the
// effective default, pinned in its labels and its nodegroups' as at create;
// between two templates that both leave kube_tag to the default, the
// cluster keeps the version it was pinned to.
func TestClusterUpgradeToTemplateWithoutKubeTagPinsDefault(t *testing.T) {
	site := `package schemas
site: defaults: kube_tag: "v1.34.4"
`
	for _, tc := range []struct {
		name     string
		from, to map[string]string
		want     string
		subject  string
	}{
		{"template drops kube_tag", map[string]string{"kube_tag": "v1.33.4"}, map[string]string{"other": "x"},
			"v1.34.4", "(kube_tag v1.33.4 → v1.34.4)"},
		{"both leave it to the default", map[string]string{"a": "1"}, map[string]string{"a": "2"},
			"v1.34.4", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAPI(t)
			a.commitSite(site)
			from := a.template(member, "from", tc.from)
			to := a.template(member, "to", tc.to)
			id := a.cluster(member, "c1", from.UUID, 1)
			a.complete(id)
			// A non-default nodegroup created with labels of its own (no
			// kube_tag) follows the cluster's.
			if r := a.do(member, "1.10", "POST", "/v1/clusters/c1/nodegroups", map[string]any{"name": "extra", "node_count": 1, "labels": map[string]string{"x": "y"}}); r.status != 202 {
				t.Fatalf("nodegroup create: %d %s", r.status, r.body)
			}
			a.complete(id)
			if r := a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/upgrade", map[string]any{"cluster_template": to.UUID}); r.status != 202 {
				t.Fatalf("upgrade: %d %s", r.status, r.body)
			}
			if tc.subject != "" && !strings.Contains(a.lastCommit(), tc.subject) {
				t.Errorf("commit %q does not say %q", a.lastCommit(), tc.subject)
			}
			st := a.loadState(id)
			if got := st.Cluster.Labels[schemas.LabelKubeTag]; got != tc.want {
				t.Fatalf("cluster kube_tag = %q, want %q (labels %v)", got, tc.want, st.Cluster.Labels)
			}
			for _, ng := range st.NodeGroups {
				if ng.IsDefault && ng.Labels[schemas.LabelKubeTag] != tc.want {
					t.Errorf("nodegroup %s kube_tag = %q, want %q", ng.Name, ng.Labels[schemas.LabelKubeTag], tc.want)
				}
			}
			if got := a.renderedVersion(id); got != tc.want {
				t.Errorf("rendered topology.version = %q, want %q", got, tc.want)
			}

			a.complete(id)
			if r := a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/upgrade", map[string]any{"cluster_template": to.UUID, "nodegroup": "extra"}); r.status != 202 {
				t.Fatalf("nodegroup upgrade: %d %s", r.status, r.body)
			}
			if ng := nodeGroupNamed(a.loadState(id), "extra"); ng.Labels[schemas.LabelKubeTag] != tc.want {
				t.Errorf("nodegroup extra after its upgrade: kube_tag = %q, want %q (labels %v)", ng.Labels[schemas.LabelKubeTag], tc.want, ng.Labels)
			}
		})
	}
}
