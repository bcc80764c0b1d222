package clusterclass

import (
	"encoding/base64"
	"fmt"
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// containerd configuration of every machine (the sandbox image follows
// container_infra_prefix, so it is a variable, overridable per nodegroup),
// the optional proxy drop-in built from the template's http(s)_proxy, and
// the template's insecure_registry (ignored by the reference driver).
const (
	VarContainerdConfig   = "containerdConfig"
	VarSystemdProxyConfig = "systemdProxyConfig"
	// VarInsecureRegistry is a registry host[:port] every node pulls from
	// without verifying its certificate, or over plain HTTP.
	VarInsecureRegistry = "insecureRegistry"
)

// RegistryHostsDir is containerd's registry configuration directory
// (CRI config_path): one <host[:port]>/hosts.toml per registry.
const RegistryHostsDir = "/etc/containerd/certs.d"

// InsecureRegistryPattern is the shape of insecure_registry: a DNS name or
// IPv4 address with an optional port, no scheme or path (it names a
// directory under RegistryHostsDir). schemas/documents.cue holds the same
// expression, which the API applies.
const InsecureRegistryPattern = `^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$`

// DefaultSandboxImage is the pause image of containerd without a mirror.
const DefaultSandboxImage = "registry.k8s.io/pause:3.9"

const restartContainerd = "systemctl daemon-reload && systemctl restart containerd"

// ContainerdConfig returns the base64 containerd configuration with the
// given sandbox image: CRI with the systemd cgroup driver (kubeadm's
// default), and /etc/containerd/conf.d/*.toml imported so that images and
// operators can add registries without replacing this file.
//
// registryHosts points CRI at RegistryHostsDir (for insecure_registry). It
// must be set here: containerd 1.x replaces a whole plugin section with an
// imported file's, so a conf.d drop-in would drop the sandbox image and the
// cgroup driver. It is off otherwise so that clusters without an insecure
// registry keep the exact bytes (a new value rolls every machine).
func ContainerdConfig(sandboxImage string, registryHosts bool) string {
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
	if registryHosts {
		conf += fmt.Sprintf(`  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = %q
`, RegistryHostsDir)
	}
	return base64.StdEncoding.EncodeToString([]byte(conf))
}

// insecureRegistryFile is the hosts.toml of the insecure registry, as a
// files entry: HTTPS without certificate verification first, then plain
// HTTP (what Docker's --insecure-registry, which the Heat drivers set, did;
// containerd tries the hosts in order and moves on when one fails).
const insecureRegistryFile = `path: {{ printf "` + RegistryHostsDir + `/%s/hosts.toml" .insecureRegistry | toJson }}
owner: root:root
permissions: "0644"
content: |
  server = "https://{{ .insecureRegistry }}"

  [host."https://{{ .insecureRegistry }}"]
    capabilities = ["pull", "resolve", "push"]
    skip_verify = true

  [host."http://{{ .insecureRegistry }}"]
    capabilities = ["pull", "resolve", "push"]
`

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
	def := ContainerdConfig(DefaultSandboxImage, false)
	const confPath, proxyPath = "/etc/containerd/config.toml", "/etc/systemd/system/containerd.service.d/proxy.conf"
	return Feature{
		Name:   "containerd_config",
		Values: containerdConfigValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarContainerdConfig, stringSchema("Base64 containerd config.toml (sandbox image follows container_infra_prefix).", &def)),
			variable(VarSystemdProxyConfig, optionalString("Base64 systemd drop-in with the proxy environment of containerd; empty for none.")),
			variable(VarInsecureRegistry, func() clusterv1.JSONSchemaProps {
				s := optionalString("Registry host[:port] trusted without TLS verification or over HTTP (insecure_registry); empty for none. containerdConfig must then set config_path.")
				s.Pattern = `^$|` + InsecureRegistryPattern
				return s
			}()),
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
			{
				Name:      "insecureRegistry",
				EnabledIf: `{{ ne .insecureRegistry "" }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(), fromTemplate("add", kcpSpec+"/files/-", insecureRegistryFile)),
					definition(selectWorkerBootstrap(), fromTemplate("add", kctSpec+"/files/-", insecureRegistryFile)),
				},
			},
		},
	}
}

// containerdConfigValues sets insecureRegistry only when the template sets
// it (as apiServerPort).
func containerdConfigValues(in *Inputs) (map[string]any, error) {
	t := &in.Template
	insecure := intent.Deref(t.InsecureRegistry)
	vars := map[string]any{
		VarContainerdConfig:   ContainerdConfig(SandboxImage(in.Labels[schemas.LabelContainerInfraPrefix]), insecure != ""),
		VarSystemdProxyConfig: SystemdProxyConfig(intent.Deref(t.HTTPProxy), intent.Deref(t.HTTPSProxy), intent.Deref(t.NoProxy)),
	}
	if insecure != "" {
		vars[VarInsecureRegistry] = insecure
	}
	return vars, nil
}

// SandboxImage is containerd's pause image under a registry mirror.
func SandboxImage(prefix string) string {
	if prefix == "" {
		return DefaultSandboxImage
	}
	return strings.TrimSuffix(prefix, "/") + "/pause:3.9"
}
