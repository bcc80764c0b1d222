package compiler

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/intent"
)

// apiserver_port and insecure_registry (ignored by the reference driver)
// reach every object that needs them once Cluster API derives the topology;
// a nodegroup whose containerd config differs (its own mirror) keeps the
// registry configuration; a template without them renders neither.
func TestAPIServerPortAndInsecureRegistry(t *testing.T) {
	in := testInputs(t)["existing-network-volumes"]
	for i := range in.NodeGroups {
		if in.NodeGroups[i].Role == intent.RoleWorker {
			in.NodeGroups[i].Labels = map[string]string{"container_infra_prefix": "other.example.com/mirror"}
		}
	}
	cl := renderedCluster(t, in)
	if got := cl.Spec.ClusterNetwork.APIServerPort; got != 7443 {
		t.Errorf("clusterNetwork.apiServerPort = %d, want 7443", got)
	}
	st, err := classFor(t, cl.Spec.Topology.ClassRef.Name).Generate(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.InfrastructureCluster.Object["spec"].(map[string]any)["apiServerPort"]; got != int64(7443) {
		t.Errorf("OpenStackCluster apiServerPort = %v (%T), want 7443", got, got)
	}
	init := st.ControlPlane.Object.Object["spec"].(map[string]any)["kubeadmConfigSpec"].(map[string]any)["initConfiguration"].(map[string]any)
	if got := init["localAPIEndpoint"]; got == nil || got.(map[string]any)["bindPort"] != int64(7443) {
		t.Errorf("KCP init localAPIEndpoint = %v, want bindPort 7443", got)
	}
	const hosts = clusterclass.RegistryHostsDir + "/registry.example.com:5000/hosts.toml"
	for name, md := range st.MachineDeployments {
		files := md.BootstrapTemplate.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["files"].([]any)
		var paths []string
		for _, f := range files {
			f := f.(map[string]any)
			paths = append(paths, f["path"].(string))
			if f["path"] == "/etc/containerd/config.toml" {
				raw, _ := base64.StdEncoding.DecodeString(f["content"].(string))
				if !strings.Contains(string(raw), "other.example.com/mirror/pause") || !strings.Contains(string(raw), `config_path = "/etc/containerd/certs.d"`) {
					t.Errorf("%s containerd config:\n%s", name, raw)
				}
			}
		}
		if !strings.Contains(strings.Join(paths, " "), hosts) {
			t.Errorf("%s files %v lack %s", name, paths, hosts)
		}
	}

	in.Template.APIServerPort, in.Template.InsecureRegistry = nil, nil
	cl = renderedCluster(t, in)
	if cl.Spec.ClusterNetwork.APIServerPort != 0 {
		t.Errorf("apiServerPort %d without apiserver_port", cl.Spec.ClusterNetwork.APIServerPort)
	}
	for _, v := range cl.Spec.Topology.Variables {
		if v.Name == clusterclass.VarAPIServerPort || v.Name == clusterclass.VarInsecureRegistry {
			t.Errorf("variable %s = %s without the template field", v.Name, v.Value.Raw)
		}
		if v.Name == clusterclass.VarContainerdConfig {
			raw, _ := base64.StdEncoding.DecodeString(strings.Trim(string(v.Value.Raw), `"`))
			if !strings.Contains(string(raw), "sandbox_image") || strings.Contains(string(raw), "config_path") {
				t.Errorf("containerd config without insecure_registry:\n%s", raw)
			}
		}
	}
}
