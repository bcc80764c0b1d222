package schemas

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/openkeel/keel/intent"
)

const clusterDoc = `apiVersion: keel.openkeel.io/v1alpha1
kind: Cluster
uuid: 3fa85f64-5717-4562-b3fc-2c963f66afa6
name: prod
project_id: p1
cluster_template_id: 3fa85f64-5717-4562-b3fc-2c963f66afa7
stack_id: kube-abcde
`

func TestValidateDocument(t *testing.T) {
	c := Default()
	if vs := c.ValidateDocument(intent.KindCluster, []byte(clusterDoc)); len(vs) != 0 {
		t.Fatalf("valid cluster refused: %v", vs)
	}
	if vs := c.ValidateDocument("", []byte(clusterDoc)); len(vs) != 0 {
		t.Fatalf("valid cluster refused by #Document: %v", vs)
	}
	json := `{"apiVersion":"keel.openkeel.io/v1alpha1","kind":"Quota","project_id":"p1","resource":"Cluster","hard_limit":3}`
	if vs := c.ValidateDocument(intent.KindQuota, []byte(json)); len(vs) != 0 {
		t.Fatalf("JSON quota refused: %v", vs)
	}
	for _, tc := range []struct {
		name, kind, doc, field, msg string
	}{
		{"kind mismatch", intent.KindNodeGroup, clusterDoc, "kind", "must be NodeGroup"},
		{"unknown kind", "Bay", clusterDoc, "kind", "unknown kind"},
		{"not yaml", intent.KindCluster, "a: [", "", "not a YAML"},
		{"not an object", intent.KindCluster, "- a", "", "not a YAML or JSON object"},
		{"unknown field", intent.KindCluster, clusterDoc + "master_count: 3\n", "master_count", "unknown field"},
		{"missing field", intent.KindCluster, strings.Replace(clusterDoc, "stack_id: kube-abcde\n", "", 1), "stack_id", "required"},
		{"name pattern", intent.KindCluster, strings.Replace(clusterDoc, "name: prod", "name: 9prod", 1), "name", "must start with a letter"},
		{"name length", intent.KindCluster, strings.Replace(clusterDoc, "name: prod", "name: a"+strings.Repeat("b", 242), 1), "name", "at most 242"},
		{"health", intent.KindCluster, clusterDoc + "health_status: OK\n", "health_status", "HEALTHY"},
		{"bad label", intent.KindCluster, clusterDoc + "labels:\n  boot_volume_size: big\n", "labels.boot_volume_size", "must be an integer"},
		{"typo label", intent.KindCluster, clusterDoc + "labels:\n  kube_tga: v1.2.3\n", "labels.kube_tga", "did you mean kube_tag"},
		{"timestamp", intent.KindCluster, clusterDoc + "created_at: yesterday\n", "created_at", "RFC 3339"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := c.ValidateDocument(tc.kind, []byte(tc.doc))
			x := violationFor(t, vs, tc.field)
			if !strings.Contains(x.Message, tc.msg) {
				t.Errorf("message %q, want %q", x.Message, tc.msg)
			}
		})
	}
}

func TestValidateTemplateNodeGroupQuota(t *testing.T) {
	c := Default()
	tmpl := "apiVersion: keel.openkeel.io/v1alpha1\nkind: ClusterTemplate\nuuid: 3fa85f64-5717-4562-b3fc-2c963f66afa6\nname: t\nproject_id: p\ncoe: kubernetes\nimage_id: img\n"
	ng := "apiVersion: keel.openkeel.io/v1alpha1\nkind: NodeGroup\nuuid: 3fa85f64-5717-4562-b3fc-2c963f66afa6\nname: w\ncluster_id: 3fa85f64-5717-4562-b3fc-2c963f66afa7\nproject_id: p\n"
	for _, tc := range []struct {
		kind, doc, field string // field "" = valid
	}{
		{intent.KindClusterTemplate, tmpl, ""},
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 6443\nserver_type: vm\nnetwork_driver: cilium\n", ""},
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 1023\n", "apiserver_port"},
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 65536\n", "apiserver_port"},
		// Ports control-plane nodes already use, and NodePorts.
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 7443\n", ""},
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 8443\n", "apiserver_port"},
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 10250\n", "apiserver_port"},
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 30000\n", "apiserver_port"},
		{intent.KindClusterTemplate, tmpl + "apiserver_port: 32768\n", ""},
		// insecure_registry names a containerd hosts directory: host[:port].
		{intent.KindClusterTemplate, tmpl + "insecure_registry: registry.local:5000\n", ""},
		{intent.KindClusterTemplate, tmpl + "insecure_registry: 10.0.0.5\n", ""},
		{intent.KindClusterTemplate, tmpl + "insecure_registry: http://registry.local:5000\n", "insecure_registry"},
		{intent.KindClusterTemplate, tmpl + "insecure_registry: registry.local/library\n", "insecure_registry"},
		{intent.KindClusterTemplate, tmpl + "insecure_registry: registry.local:65536\n", "insecure_registry"},
		{intent.KindClusterTemplate, tmpl + "insecure_registry: -registry.local\n", "insecure_registry"},
		{intent.KindClusterTemplate, tmpl + "server_type: container\n", "server_type"},
		{intent.KindClusterTemplate, tmpl + "network_driver: flannel\n", "network_driver"},
		{intent.KindClusterTemplate, tmpl + "dns_nameserver: 8.8.8.8,dns.example\n", "dns_nameserver"},
		{intent.KindClusterTemplate, tmpl + "docker_volume_size: 0\n", "docker_volume_size"},
		{intent.KindClusterTemplate, tmpl + "docker_storage_driver: devicemapper\ndocker_volume_size: 2\n", "docker_volume_size"},
		{intent.KindClusterTemplate, strings.Replace(tmpl, "coe: kubernetes", "coe: swarm", 1), "coe"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 0\n", ""},
		{intent.KindNodeGroup, ng + "role: master\nnode_count: 3\n", ""},
		{intent.KindNodeGroup, ng + "role: master\nnode_count: 0\n", "node_count"},
		{intent.KindNodeGroup, ng + "role: master\nnode_count: 4\n", "node_count"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: -1\n", "node_count"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 1\nmin_node_count: 2\n", "node_count"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 1\nmin_node_count: 1\nmax_node_count: 0\n", "node_count"},
		{intent.KindNodeGroup, ng + "role: Worker\nnode_count: 1\n", "role"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 1\nnode_taints:\n- key: k\n  effect: NoExecute\n", ""},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 1\nnode_taints:\n- key: k\n  effect: Never\n", "node_taints.0.effect"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 1\nnode_taints:\n- value: v\n  effect: NoSchedule\n", "node_taints.0.key"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 1\nnode_labels:\n  k8s.io/x: y\n", "node_labels.k8s.io/x"},
		{intent.KindNodeGroup, ng + "role: worker\nnode_count: 1\nnode_labels:\n  node.kubernetes.io/x: y\n  topology.kubernetes.io/zone: az1\n", ""},
		{intent.KindNodeGroup, ng + "role: master\nnode_count: 1\nnode_labels:\n  a: b\n", "node_labels.a"},
		{intent.KindNodeGroup, ng + "role: master\nnode_count: 1\nnode_taints:\n- key: a\n  effect: NoSchedule\n", "node_taints.0"},
		{intent.KindQuota, "apiVersion: keel.openkeel.io/v1alpha1\nkind: Quota\nproject_id: p\nresource: Cluster\nhard_limit: 0\n", ""},
		{intent.KindQuota, "apiVersion: keel.openkeel.io/v1alpha1\nkind: Quota\nproject_id: p/../x\nresource: Cluster\nhard_limit: 1\n", "project_id"},
	} {
		vs := c.ValidateDocument(tc.kind, []byte(tc.doc))
		if tc.field == "" {
			if len(vs) != 0 {
				t.Errorf("%s refused: %v\n%s", tc.kind, vs, tc.doc)
			}
			continue
		}
		if !slices.Contains(fields(vs), tc.field) {
			t.Errorf("%s: want a violation on %s, got %v\n%s", tc.kind, tc.field, vs, tc.doc)
		}
	}
}

// The CUE definitions and the Go structs of intent describe the
// same documents: same field names, and what keel writes validates.
func TestSchemaMatchesIntentStructs(t *testing.T) {
	c := Default()
	for kind, typ := range map[string]reflect.Type{
		intent.KindClusterTemplate: reflect.TypeFor[intent.ClusterTemplate](),
		intent.KindCluster:         reflect.TypeFor[intent.Cluster](),
		intent.KindNodeGroup:       reflect.TypeFor[intent.NodeGroup](),
		intent.KindQuota:           reflect.TypeFor[intent.Quota](),
	} {
		goFields := jsonFields(typ)
		var cueFields []string
		it, err := c.value.LookupPath(cue.MakePath(cue.Def(kind))).Fields(cue.Optional(true))
		if err != nil {
			t.Fatal(err)
		}
		for it.Next() {
			cueFields = append(cueFields, it.Selector().Unquoted())
		}
		slices.Sort(goFields)
		slices.Sort(cueFields)
		if !slices.Equal(goFields, cueFields) {
			t.Errorf("%s: Go fields %v\nCUE fields %v", kind, goFields, cueFields)
		}
	}
	// What keel writes (intent.Marshal) validates, and what validates decodes.
	cl := intent.Cluster{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		UUID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", Name: "prod", ProjectID: "p1", UserID: "u",
		ClusterTemplateID: "3fa85f64-5717-4562-b3fc-2c963f66afa7", StackID: "kube-abcde", ClusterClass: "magnum-v0-1-0",
		Labels: map[string]string{"kube_tag": "v1.32.4"}, CreateTimeout: 60, Keypair: intent.Ptr("k")}
	data, err := intent.Marshal(cl)
	if err != nil {
		t.Fatal(err)
	}
	if vs := c.ValidateDocument(intent.KindCluster, data); len(vs) != 0 {
		t.Errorf("intent.Marshal output refused: %v\n%s", vs, data)
	}
	files, _ := filepath.Glob("../examples/cluster-repo/projects/*/clusters/*/cluster.yaml")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var got intent.Cluster
		if err := intent.Unmarshal(data, &got); err != nil {
			t.Errorf("%s validates but does not decode: %v", f, err)
		}
	}
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")
		if f.Anonymous && slices.Contains(tag, "inline") {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		out = append(out, tag[0])
	}
	return out
}

// ValidateField applies one field's rule alone (the API's check), with the
// schema's message, and ignores the definition's other required fields.
func TestValidateField(t *testing.T) {
	c := Default()
	if vs := c.ValidateField(intent.KindClusterTemplate, "insecure_registry", "registry.local:5000"); len(vs) != 0 {
		t.Errorf("valid registry refused: %v", vs)
	}
	vs := c.ValidateField(intent.KindClusterTemplate, "insecure_registry", "https://registry.local")
	if len(vs) != 1 || vs[0].Field != "insecure_registry" || !strings.Contains(vs[0].Message, "host[:port]") {
		t.Errorf("scheme: %v", vs)
	}
	vs = c.ValidateField(intent.KindClusterTemplate, "apiserver_port", int64(8443))
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "keystone webhook") {
		t.Errorf("8443: %v", vs)
	}
	if vs := c.ValidateField(intent.KindClusterTemplate, "apiserver_port", int64(7443)); len(vs) != 0 {
		t.Errorf("7443 refused: %v", vs)
	}
	if vs := c.ValidateField("Template", "name", "x"); len(vs) != 1 || vs[0].Field != "kind" {
		t.Errorf("unknown kind: %v", vs)
	}
}
