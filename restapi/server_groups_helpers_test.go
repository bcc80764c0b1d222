package restapi

import (
	"path"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// cloudConfigOf decrypts HEAD's rendered cloud-config Secret of the
// cluster folder dir.
func (a *keystoneCloudAPI) cloudConfigOf(t *testing.T, kr *secrets.Keyring, dir string) *corev1.Secret {
	t.Helper()
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	data, err := sn.ReadFile(path.Join(intent.RenderedPath(dir), "secret-cloud-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := kr.Decrypt(data)
	if err != nil {
		t.Fatal(err)
	}
	var s corev1.Secret
	if err := yaml.Unmarshal(plain, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// renderedServerGroups reads HEAD's rendered CAPI Cluster of a cluster
// and returns the serverGroupId variable of its topology ("" key: the
// cluster-wide value, the control plane's) and of each MachineDeployment's
// overrides (by its nodegroup name).
func (a *testAPI) renderedServerGroups(t *testing.T, uuid string) map[string]string {
	t.Helper()
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	data, err := sn.ReadFile(path.Join(intent.RenderedPath(a.loadState(uuid).Dir), "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type variable struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}
	var cl struct {
		Spec struct {
			Topology struct {
				Variables []variable `json:"variables"`
				Workers   struct {
					MachineDeployments []struct {
						Name      string `json:"name"`
						Variables struct {
							Overrides []variable `json:"overrides"`
						} `json:"variables"`
					} `json:"machineDeployments"`
				} `json:"workers"`
			} `json:"topology"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &cl); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	pick := func(key string, vs []variable) {
		for _, v := range vs {
			if v.Name == "serverGroupId" {
				s, _ := v.Value.(string)
				out[key] = s
			}
		}
	}
	pick("", cl.Spec.Topology.Variables)
	for _, md := range cl.Spec.Topology.Workers.MachineDeployments {
		pick(md.Name, md.Variables.Overrides)
	}
	return out
}
