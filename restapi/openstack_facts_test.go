package restapi

import (
	"bytes"
	"context"
	"path"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// renderedTopology reads the committed CAPI Cluster of a cluster folder:
// its cluster variables and each MachineDeployment's overrides.
func renderedTopology(t *testing.T, sn *gitstore.Snapshot, dir string) (vars map[string]any, overrides map[string]map[string]any) {
	t.Helper()
	data, err := sn.ReadFile(path.Join(intent.RenderedPath(dir), "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cl struct {
		Spec struct {
			Topology struct {
				Variables []struct {
					Name  string `json:"name"`
					Value any    `json:"value"`
				} `json:"variables"`
				Workers struct {
					MachineDeployments []struct {
						Name      string `json:"name"`
						Variables struct {
							Overrides []struct {
								Name  string `json:"name"`
								Value any    `json:"value"`
							} `json:"overrides"`
						} `json:"variables"`
					} `json:"machineDeployments"`
				} `json:"workers"`
			} `json:"topology"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &cl); err != nil {
		t.Fatal(err)
	}
	vars = map[string]any{}
	for _, v := range cl.Spec.Topology.Variables {
		vars[v.Name] = v.Value
	}
	overrides = map[string]map[string]any{}
	for _, md := range cl.Spec.Topology.Workers.MachineDeployments {
		overrides[md.Name] = map[string]any{}
		for _, v := range md.Variables.Overrides {
			overrides[md.Name][v.Name] = v.Value
		}
	}
	return vars, overrides
}

// The OpenStack answers at create time (a flavor's name for its ID, an
// image's UUID for its name, the external network's ID) are rendered and
// recorded in the cluster folder's facts.yaml in the same commit; a resize
// re-renders from the recorded facts without asking OpenStack; a new
// nodegroup's flavor is resolved and added to them.
func TestOpenStackFactsRecorded(t *testing.T) {
	cloud := newMemCloud()
	a := newTestAPI(t, func(c *Config) { c.Cloud = cloud })
	r := a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{
		"name": "t1", "coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "3", "master_flavor_id": "4",
		"external_network_id": "public", "master_lb_enabled": true, "labels": map[string]string{"kube_tag": "v1.33.4"},
	})
	if r.status != 201 {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tm := r.json(t)
	if tm["cluster_distro"] != "ubuntu" {
		t.Errorf("cluster_distro %v, want the image's os_distro", tm["cluster_distro"])
	}
	id := a.cluster(member, "c1", tm["uuid"].(string), 2)
	a.complete(id)
	v, err := a.db.GetClusterByUUID(context.Background(), id)
	if err != nil || v == nil {
		t.Fatal(err)
	}
	factsPath := path.Join(v.Dir, intent.FactsFile)
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	parent, err := a.store.Resolve("HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	psn, err := a.store.SnapshotAt(parent)
	if err != nil {
		t.Fatal(err)
	}
	if psn.Exists(factsPath) || !sn.Exists(factsPath) {
		t.Fatalf("%s is not added by the create commit", factsPath)
	}
	factsYAML, _ := sn.ReadFile(factsPath)
	facts, err := intent.ParseFacts(factsYAML)
	if err != nil {
		t.Fatal(err)
	}
	if facts.FlavorNames["3"] != "m1.medium" || facts.FlavorNames["4"] != "m1.large" ||
		facts.ImageUUIDs["ubuntu-2204-kube"] != "8d4f6a2e-1111-4a55-9e0b-3f1d2c4b5a61" ||
		facts.ExternalNetworkID != "5e0c7d7a-aaaa-4f0e-8c1e-0b9a8f7e6d51" ||
		facts.Flavors["m1.medium"] != (intent.Flavor{VCPUs: 2, RAMMiB: 4096, DiskGiB: 40}) {
		t.Fatalf("facts:\n%s", factsYAML)
	}
	want := map[string]any{
		"controlPlaneFlavor": "m1.large", "flavor": "m1.medium",
		"imageUUID": "8d4f6a2e-1111-4a55-9e0b-3f1d2c4b5a61", "hardwareDiskBus": "scsi",
		"externalNetworkId": "5e0c7d7a-aaaa-4f0e-8c1e-0b9a8f7e6d51",
	}
	vars, _ := renderedTopology(t, sn, v.Dir)
	for k, w := range want {
		if vars[k] != w {
			t.Errorf("after create: %s = %v, want %v", k, vars[k], w)
		}
	}

	// A resize asks OpenStack nothing and keeps facts and variables.
	calls := cloud.count()
	if r := a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/resize", `{"node_count": 4}`); r.status != 202 {
		t.Fatalf("resize: %d %s", r.status, r.body)
	}
	if cloud.count() != calls {
		t.Errorf("the resize made %d OpenStack lookups", cloud.count()-calls)
	}
	sn, _ = a.store.SnapshotHead()
	if got, _ := sn.ReadFile(factsPath); !bytes.Equal(got, factsYAML) {
		t.Errorf("facts changed by a resize:\n%s", got)
	}
	vars, _ = renderedTopology(t, sn, v.Dir)
	for k, w := range want {
		if vars[k] != w {
			t.Errorf("after resize: %s = %v, want %v", k, vars[k], w)
		}
	}

	// A nodegroup on another flavor, by ID: resolved, recorded, rendered.
	if r := a.do(member, "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name": "gpu", "flavor_id": "9"}`); r.status != 202 {
		t.Fatalf("nodegroup: %d %s", r.status, r.body)
	}
	sn, _ = a.store.SnapshotHead()
	got, _ := sn.ReadFile(factsPath)
	if facts, err = intent.ParseFacts(got); err != nil || facts.FlavorNames["9"] != "g1.gpu" || facts.FlavorNames["3"] != "m1.medium" {
		t.Fatalf("facts after adding a nodegroup (%v):\n%s", err, got)
	}
	_, overrides := renderedTopology(t, sn, v.Dir)
	if overrides["gpu"]["flavor"] != "g1.gpu" {
		t.Errorf("gpu nodegroup overrides %v, want flavor g1.gpu", overrides["gpu"])
	}
}
