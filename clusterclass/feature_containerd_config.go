package clusterclass

import (
	"encoding/base64"
	"fmt"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// containerd configuration of every machine (the sandbox image follows
// container_infra_prefix, so it is a variable, overridable per nodegroup) and
// the optional proxy drop-in built from the template's http(s)_proxy.
const (
	VarContainerdConfig   = "containerdConfig"
	VarSystemdProxyConfig = "systemdProxyConfig"
)

// DefaultSandboxImage is the pause image of containerd without a mirror.
const DefaultSandboxImage = "registry.k8s.io/pause:3.9"

const restartContainerd = "systemctl daemon-reload && systemctl restart containerd"

// ContainerdConfig returns the base64 containerd configuration with the
// given sandbox image: CRI with the systemd cgroup driver (kubeadm's
// default), and /etc/containerd/conf.d/*.toml imported so that images and
// operators can add registries without replacing this file.
func ContainerdConfig(sandboxImage string) string {
	conf := fmt.Sprintf(`version = 2
imports = ["/etc/containerd/conf.d/*.toml"]

[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = %q
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = true
`, sandboxImage)
	return base64.StdEncoding.EncodeToString([]byte(conf))
}

// SystemdProxyConfig returns the base64 systemd drop-in that gives
// containerd the proxy settings (lower and upper case, as tools disagree),
// or "" when neither proxy is set.
func SystemdProxyConfig(httpProxy, httpsProxy, noProxy string) string {
	if httpProxy == "" && httpsProxy == "" {
		return ""
	}
	s := "[Service]\n"
	for _, kv := range [][2]string{{"http_proxy", httpProxy}, {"https_proxy", httpsProxy}, {"no_proxy", noProxy}} {
		if kv[1] == "" {
			continue
		}
		s += fmt.Sprintf("Environment=%q\nEnvironment=%q\n", kv[0]+"="+kv[1], upper(kv[0])+"="+kv[1])
	}
	return base64.StdEncoding.EncodeToString([]byte(s))
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func containerdConfig() Feature {
	def := ContainerdConfig(DefaultSandboxImage)
	const confPath, proxyPath = "/etc/containerd/config.toml", "/etc/systemd/system/containerd.service.d/proxy.conf"
	return Feature{
		Name: "containerd_config",
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarContainerdConfig, stringSchema("Base64 containerd config.toml (sandbox image follows container_infra_prefix).", &def)),
			variable(VarSystemdProxyConfig, optionalString("Base64 systemd drop-in with the proxy environment of containerd; empty for none.")),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name: "containerdConfig",
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(),
						fileFromVariable(kcpSpec+"/files/-", confPath, "0644", VarContainerdConfig),
						withValue("add", kcpSpec+"/preKubeadmCommands/-", restartContainerd),
					),
					// The workers' template has no files or commands of its
					// own: this patch creates both lists, and every later
					// feature appends (registry order, TestRegistryOrder).
					definition(selectWorkerBootstrap(),
						fromTemplate("add", kctSpec+"/files", fmt.Sprintf(
							`[{"path": %q, "owner": "root:root", "permissions": "0644", "encoding": "base64", "content": {{ .containerdConfig | toJson }}}]`, confPath)),
						withValue("add", kctSpec+"/preKubeadmCommands", []string{restartContainerd}),
					),
				},
			},
			{
				Name:      "systemdProxyConfig",
				EnabledIf: `{{ ne .systemdProxyConfig "" }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(), fileFromVariable(kcpSpec+"/files/-", proxyPath, "0644", VarSystemdProxyConfig)),
					definition(selectWorkerBootstrap(), fileFromVariable(kctSpec+"/files/-", proxyPath, "0644", VarSystemdProxyConfig)),
				},
			},
		},
	}
}
