package compiler

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
)

// foundTopology is a Cluster's topology as magnum-cluster-api leaves it:
// its own class and variables, which keel renders back unchanged.
func foundTopology() map[string]any {
	return map[string]any{
		"classRef": map[string]any{"name": "magnum-v0.26.2"},
		"version":  "v1.30.4",
		"controlPlane": map[string]any{"replicas": int64(3),
			"metadata": map[string]any{"labels": map[string]any{"role": "cp"}}},
		"workers": map[string]any{"machineDeployments": []any{
			map[string]any{"class": "default-worker", "name": "default-worker", "replicas": int64(2),
				"failureDomain": "az1"},
			map[string]any{"class": "default-worker", "name": "gpu", "replicas": int64(1)},
		}},
		"variables": []any{
			map[string]any{"name": "apiServerLoadBalancer", "value": map[string]any{"enabled": true}},
			map[string]any{"name": "imageRepository", "value": ""},
		},
	}
}

func adoptedInput(t *testing.T) Input {
	in := secretsInput(t)
	in.Cluster.ClusterClass = "magnum-v0.26.2"
	in.Cluster.Labels["kube_tag"] = "v1.30.4"
	in.Cluster.Adopted = &intent.Adopted{From: "magnum-cluster-api", Status: "CREATE_COMPLETE", Class: "magnum-v0.26.2",
		Topology: foundTopology(), ClusterNetwork: map[string]any{"pods": map[string]any{"cidrBlocks": []any{"10.100.0.0/16"}}}}
	in.NodeGroups[0].NodeCount = 3
	in.NodeGroups[1].NodeCount = 2
	in.NodeGroups = append(in.NodeGroups, intent.NodeGroup{Name: "gpu", Role: intent.RoleWorker, NodeCount: 1})
	return in
}

// A cluster adopted from magnum-cluster-api renders, while it is on the
// class it was found on, exactly the topology it was found with but for
// what keel owns (the counts, Magnum's kube_tag), and nothing of keel's
// own addons or cloud-config:
// so keel's first apply replaces no Machine. Its first upgrade moves it
// onto keel's ClusterClass and renders like any keel cluster.
func TestAdoptedClusterKeepsFoundTopology(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Input)
		check func(t *testing.T, files map[string][]byte, topology map[string]any)
		err   string
	}{
		{name: "as found", check: func(t *testing.T, files map[string][]byte, got map[string]any) {
			if !reflect.DeepEqual(got, yamlRoundTrip(t, foundTopology())) {
				t.Errorf("topology changed on adoption:\n got %v\nwant %v", got, foundTopology())
			}
			for f := range files {
				if !strings.HasPrefix(f, "secret-") && f != "cluster.yaml" && f != KustomizationFile {
					t.Errorf("an adopted cluster renders %s, want only the Cluster and the CA Secrets", f)
				}
			}
			for _, want := range []string{"secret-ca.yaml", "secret-etcd.yaml", "secret-proxy.yaml", "secret-sa.yaml"} {
				if files[want] == nil {
					t.Errorf("no %s among %v", want, keys(files))
				}
			}
			if files["secret-cloud-config.yaml"] != nil {
				t.Error("the driver's cloud-config Secret is replaced on adoption")
			}
		}},
		{name: "resized and a nodegroup deleted", edit: func(in *Input) {
			in.NodeGroups[1].NodeCount = 5
			in.NodeGroups = in.NodeGroups[:2]
		}, check: func(t *testing.T, _ map[string][]byte, got map[string]any) {
			mds := got["workers"].(map[string]any)["machineDeployments"].([]any)
			if len(mds) != 1 || mds[0].(map[string]any)["replicas"] != float64(5) {
				t.Errorf("machineDeployments = %v, want default-worker alone with 5 replicas", mds)
			}
			if got["classRef"].(map[string]any)["name"] != "magnum-v0.26.2" {
				t.Errorf("class moved on a resize: %v", got["classRef"])
			}
		}},
		{name: "adopted with another kube_tag", edit: func(in *Input) { in.Cluster.Labels["kube_tag"] = "1.31.1" },
			check: func(t *testing.T, _ map[string][]byte, got map[string]any) {
				if got["version"] != "v1.31.1" {
					t.Errorf("version %v, want Magnum's kube_tag v1.31.1", got["version"])
				}
			}},
		{name: "upgraded onto keel's class", edit: func(in *Input) { in.Cluster.ClusterClass = "magnum-v0.1.0" },
			check: func(t *testing.T, files map[string][]byte, got map[string]any) {
				if got["classRef"].(map[string]any)["name"] != "magnum-v0.1.0" || files["secret-cloud-config.yaml"] == nil {
					t.Errorf("an upgraded adopted cluster does not render as keel's: class %v, files %v", got["classRef"], keys(files))
				}
			}},
		{name: "nodegroup added on the driver's class", edit: func(in *Input) {
			in.NodeGroups = append(in.NodeGroups, intent.NodeGroup{Name: "extra", Role: intent.RoleWorker, NodeCount: 1})
		}, err: "nodegroup extra is not among the MachineDeployments of the adopted ClusterClass magnum-v0.26.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := adoptedInput(t)
			if tc.edit != nil {
				tc.edit(&in)
			}
			docs, err := Compile(in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, d := range docs {
				files[d.Path] = d.Bytes()
			}
			var cluster struct {
				Spec struct {
					Topology map[string]any `json:"topology"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal(files["cluster.yaml"], &cluster); err != nil {
				t.Fatal(err)
			}
			tc.check(t, files, cluster.Spec.Topology)
		})
	}
}

func yamlRoundTrip(t *testing.T, v map[string]any) map[string]any {
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
