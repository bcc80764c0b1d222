package clusterclass

import (
	_ "embed"
	"encoding/base64"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"

	"github.com/openkeel/keel/internal/kube"
)

// Placeholders in the templates; the always-enabled patches overwrite them.
const (
	placeholder      = "PLACEHOLDER"
	placeholderImage = "00000000-0000-0000-0000-000000000000"
)

// Files every control-plane node carries whatever the features, so that the
// features only switch flags on (audit log, keystone webhook) and never have
// to ship content of their own.
const (
	AuditPolicyPath    = "/etc/kubernetes/audit-policy/apiserver-audit-policy.yaml"
	WebhookConfigPath  = "/etc/kubernetes/webhooks/webhookconfig.yaml"
	kubeProxyScript    = "/run/kubeadm/configure-kube-proxy.sh"
	kubeadmConfigInit  = "/run/kubeadm/kubeadm.yaml"
	webhookKubeconfig  = "apiVersion: v1\nkind: Config\nclusters:\n- name: webhook\n  cluster:\n    insecure-skip-tls-verify: true\n    server: https://127.0.0.1:8443/webhook\ncontexts:\n- name: webhook\n  context:\n    cluster: webhook\n    user: webhook\ncurrent-context: webhook\nusers:\n- name: webhook\n  user: {}\n"
	configureKubeProxy = `#!/bin/bash
# Expose kube-proxy metrics on every address (kubeadm binds 127.0.0.1), once.
set -euo pipefail
if ! grep -q '^kind: KubeProxyConfiguration' ` + kubeadmConfigInit + `; then
  cat >> ` + kubeadmConfigInit + ` <<'EOF'
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
metricsBindAddress: 0.0.0.0:10249
EOF
fi
`
)

//go:embed data/audit-policy.yaml
var auditPolicy []byte

func identityRef() *infrav1.OpenStackIdentityReference {
	return &infrav1.OpenStackIdentityReference{Type: "Secret", Name: placeholder, CloudName: "default"}
}

// openStackClusterTemplate: security groups that let the nodes talk to each
// other and expose NodePorts, as the reference driver does.
func openStackClusterTemplate(name string) *infrav1.OpenStackClusterTemplate {
	nodePort := func(proto string) infrav1.SecurityGroupRuleSpec {
		return infrav1.SecurityGroupRuleSpec{
			Name: "NodePort " + proto, Description: ptr.To("Kubernetes NodePort services (" + proto + ")"),
			Direction: "ingress", EtherType: ptr.To("IPv4"), Protocol: ptr.To(proto),
			PortRangeMin: ptr.To(30000), PortRangeMax: ptr.To(32767), RemoteIPPrefix: ptr.To("0.0.0.0/0"),
		}
	}
	return &infrav1.OpenStackClusterTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: InfraAPIVersion, Kind: "OpenStackClusterTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace},
		Spec: infrav1.OpenStackClusterTemplateSpec{Template: infrav1.OpenStackClusterTemplateResource{
			Spec: infrav1.OpenStackClusterSpec{
				IdentityRef: *identityRef(),
				ManagedSecurityGroups: &infrav1.ManagedSecurityGroups{
					AllowAllInClusterTraffic:   true,
					AllNodesSecurityGroupRules: []infrav1.SecurityGroupRuleSpec{nodePort("udp"), nodePort("tcp")},
				},
			},
		}},
	}
}

func openStackMachineTemplate(name string) *infrav1.OpenStackMachineTemplate {
	return &infrav1.OpenStackMachineTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: InfraAPIVersion, Kind: "OpenStackMachineTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace},
		Spec: infrav1.OpenStackMachineTemplateSpec{Template: infrav1.OpenStackMachineTemplateResource{
			Spec: infrav1.OpenStackMachineSpec{
				Flavor:      ptr.To(placeholder),
				IdentityRef: identityRef(),
				Image:       infrav1.ImageParam{ID: ptr.To(placeholderImage)},
			},
		}},
	}
}

func arg(name, value string) bootstrapv1.Arg { return bootstrapv1.Arg{Name: name, Value: &value} }

// nodeRegistration names nodes after the instance hostname and leaves cloud
// integration to the external OpenStack cloud controller manager.
func nodeRegistration() bootstrapv1.NodeRegistrationOptions {
	return bootstrapv1.NodeRegistrationOptions{
		Name:             "{{ local_hostname }}",
		KubeletExtraArgs: []bootstrapv1.Arg{arg("cloud-provider", "external")},
	}
}

func b64File(path, permissions string, content []byte) bootstrapv1.File {
	return bootstrapv1.File{
		Path: path, Owner: "root:root", Permissions: permissions,
		Encoding: bootstrapv1.Base64, Content: base64.StdEncoding.EncodeToString(content),
	}
}

func kubeadmControlPlaneTemplate(name string) *controlplanev1.KubeadmControlPlaneTemplate {
	days := int32(21)
	return &controlplanev1.KubeadmControlPlaneTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: ControlPlaneAPIVersion, Kind: "KubeadmControlPlaneTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace},
		Spec: controlplanev1.KubeadmControlPlaneTemplateSpec{Template: controlplanev1.KubeadmControlPlaneTemplateResource{
			Spec: controlplanev1.KubeadmControlPlaneTemplateResourceSpec{
				// Renew certificates by rolling machines three weeks before
				// they expire (kubeadm certificates last one year).
				Rollout: controlplanev1.KubeadmControlPlaneRolloutSpec{
					Before: controlplanev1.KubeadmControlPlaneRolloutBeforeSpec{CertificatesExpiryDays: days},
				},
				KubeadmConfigSpec: bootstrapv1.KubeadmConfigSpec{
					ClusterConfiguration: bootstrapv1.ClusterConfiguration{
						APIServer: bootstrapv1.APIServer{
							// Seeded so that features can append with "/-"
							// (v1beta2 extraArgs are a list of {name, value}).
							ExtraArgs: []bootstrapv1.Arg{arg("profiling", "false")},
							ExtraVolumes: []bootstrapv1.HostPathMount{{
								Name: "webhooks", HostPath: "/etc/kubernetes/webhooks", MountPath: "/etc/kubernetes/webhooks", ReadOnly: ptrTrue(),
							}},
						},
						ControllerManager: bootstrapv1.ControllerManager{ExtraArgs: []bootstrapv1.Arg{
							arg("bind-address", "0.0.0.0"), arg("cloud-provider", "external"), arg("profiling", "false"),
						}},
						Scheduler: bootstrapv1.Scheduler{ExtraArgs: []bootstrapv1.Arg{
							arg("bind-address", "0.0.0.0"), arg("profiling", "false"),
						}},
						Etcd: bootstrapv1.Etcd{Local: bootstrapv1.LocalEtcd{ExtraArgs: []bootstrapv1.Arg{
							arg("listen-metrics-urls", "http://0.0.0.0:2381"),
						}}},
					},
					Files: []bootstrapv1.File{
						b64File(AuditPolicyPath, "0600", auditPolicy),
						b64File(WebhookConfigPath, "0644", []byte(webhookKubeconfig)),
						b64File(kubeProxyScript, "0755", []byte(configureKubeProxy)),
					},
					InitConfiguration: bootstrapv1.InitConfiguration{NodeRegistration: nodeRegistration()},
					JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: nodeRegistration()},
					Format:            bootstrapv1.CloudConfig,
					PreKubeadmCommands: []string{
						// An ext4 etcd volume carries lost+found, which etcd refuses.
						"rm -rf /var/lib/etcd/lost+found",
						"bash " + kubeProxyScript,
					},
				},
			},
		}},
	}
}

// kubeadmConfigTemplate is the workers' bootstrap template. Its files and
// preKubeadmCommands lists are created by the containerd feature (always
// enabled, first file writer in the registry), so that no placeholder entry
// ever reaches a node.
func kubeadmConfigTemplate(name string) *bootstrapv1.KubeadmConfigTemplate {
	return &bootstrapv1.KubeadmConfigTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: BootstrapAPIVersion, Kind: "KubeadmConfigTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace},
		Spec: bootstrapv1.KubeadmConfigTemplateSpec{Template: bootstrapv1.KubeadmConfigTemplateResource{
			Spec: bootstrapv1.KubeadmConfigSpec{
				JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: nodeRegistration()},
				Format:            bootstrapv1.CloudConfig,
			},
		}},
	}
}
