package clusterclass

import (
	"encoding/base64"
	"fmt"
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
)

// Operating system of the image (template cluster_distro): Flatcar boots
// with Ignition instead of cloud-init; Ubuntu and Debian get the apt proxy.
const (
	VarOperatingSystem = "operatingSystem"
	VarAptProxyConfig  = "aptProxyConfig"
)

// Operating systems the images may run.
var OperatingSystems = []string{"ubuntu", "debian", "flatcar", "rockylinux"}

// flatcarNodeName is substituted by the real hostname on Flatcar, where
// Ignition has no {{ local_hostname }}.
const flatcarNodeName = "__REPLACE_NODE_NAME__"

// flatcarPreKubeadm fixes the node name in kubeadm's configuration (Ignition
// writes it verbatim) and restarts containerd once so that it reads the
// configuration written by Ignition after it started.
const flatcarPreKubeadm = `sed -i "s/` + flatcarNodeName + `/$(hostname -s)/g" /etc/kubeadm.yml && ` +
	`if [ ! -f /tmp/containerd-bootstrap ]; then systemctl restart containerd && touch /tmp/containerd-bootstrap; fi`

// flatcarIgnition: kubeadm must wait for containerd and for the metadata
// service (which provides the hostname and the SSH keys).
const flatcarIgnition = `systemd:
  units:
  - name: coreos-metadata-sshkeys@.service
    enabled: true
  - name: kubeadm.service
    enabled: true
    dropins:
    - name: 10-flatcar.conf
      contents: |
        [Unit]
        Requires=containerd.service coreos-metadata.service
        After=containerd.service coreos-metadata.service
        [Service]
        EnvironmentFile=/run/metadata/flatcar
`

// AptProxyConfig returns the base64 apt configuration for the proxies, or ""
// when neither is set.
func AptProxyConfig(httpProxy, httpsProxy string) string {
	if httpProxy == "" && httpsProxy == "" {
		return ""
	}
	s := ""
	if httpProxy != "" {
		s += fmt.Sprintf("Acquire::http::Proxy %q;\n", httpProxy)
	}
	if httpsProxy != "" {
		s += fmt.Sprintf("Acquire::https::Proxy %q;\n", httpsProxy)
	}
	return base64.StdEncoding.EncodeToString([]byte(s))
}

func operatingSystem() Feature {
	ubuntu := "ubuntu"
	osSchema := stringSchema("Operating system of the image (cluster_distro).", &ubuntu)
	for _, o := range OperatingSystems {
		osSchema.Enum = append(osSchema.Enum, *jsonValue(o))
	}
	ignition := map[string]any{"containerLinuxConfig": map[string]any{"additionalConfig": flatcarIgnition}}
	const aptPath = "/etc/apt/apt.conf.d/90proxy"
	return Feature{
		Name:   "operating_system",
		Values: operatingSystemValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarOperatingSystem, osSchema),
			variable(VarAptProxyConfig, optionalString("Base64 apt proxy configuration (Ubuntu, Debian); empty for none.")),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name:      "flatcar",
				EnabledIf: `{{ eq .operatingSystem "flatcar" }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(),
						withValue("add", kcpSpec+"/preKubeadmCommands/-", flatcarPreKubeadm),
						withValue("replace", kcpSpec+"/format", "ignition"),
						withValue("add", kcpSpec+"/ignition", ignition),
						withValue("replace", kcpSpec+"/initConfiguration/nodeRegistration/name", flatcarNodeName),
						withValue("replace", kcpSpec+"/joinConfiguration/nodeRegistration/name", flatcarNodeName),
					),
					// Appends to the list the containerd feature created:
					// the reference replaced the list, and whichever of the
					// two features ran last won (Flatcar workers joined as
					// __REPLACE_NODE_NAME__ when containerd won).
					definition(selectWorkerBootstrap(),
						withValue("add", kctSpec+"/preKubeadmCommands/-", flatcarPreKubeadm),
						withValue("replace", kctSpec+"/format", "ignition"),
						withValue("add", kctSpec+"/ignition", ignition),
						withValue("replace", kctSpec+"/joinConfiguration/nodeRegistration/name", flatcarNodeName),
					),
				},
			},
			{
				Name:      "aptProxyConfig",
				EnabledIf: `{{ and (or (eq .operatingSystem "ubuntu") (eq .operatingSystem "debian")) (ne .aptProxyConfig "") }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(), fileFromVariable(kcpSpec+"/files/-", aptPath, "0644", VarAptProxyConfig)),
					definition(selectWorkerBootstrap(), fileFromVariable(kctSpec+"/files/-", aptPath, "0644", VarAptProxyConfig)),
				},
			},
		},
	}
}

func operatingSystemValues(in *Inputs) (map[string]any, error) {
	t := &in.Template
	return map[string]any{
		VarAptProxyConfig:  AptProxyConfig(intent.Deref(t.HTTPProxy), intent.Deref(t.HTTPSProxy)),
		VarOperatingSystem: operatingSystemOf(intent.Deref(t.ClusterDistro)),
	}, nil
}

// operatingSystemOf maps the template's cluster_distro (ubuntu-22.04,
// flatcar, ...) to the variable's enum.
func operatingSystemOf(distro string) string {
	for _, o := range OperatingSystems {
		if strings.HasPrefix(distro, o) {
			return o
		}
	}
	return "ubuntu"
}
