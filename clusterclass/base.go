package clusterclass

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"

	"github.com/openkeel/keel/internal/kube"
)

// Placeholders in the templates; the always-enabled patches overwrite them.
const (
	placeholder      = "PLACEHOLDER"
	placeholderImage = "00000000-0000-0000-0000-000000000000"
)

func identityRef() map[string]any {
	return map[string]any{"type": "Secret", "name": placeholder, "cloudName": "default"}
}

// openStackClusterTemplate: security groups that let the nodes talk to each
// other and expose NodePorts, as the reference driver does.
func openStackClusterTemplate(name string) *unstructured.Unstructured {
	nodePort := func(proto string) map[string]any {
		return map[string]any{
			"name": "NodePort " + proto, "description": "Kubernetes NodePort services (" + proto + ")",
			"direction": "ingress", "etherType": "IPv4", "protocol": proto,
			"portRangeMin": int64(30000), "portRangeMax": int64(32767), "remoteIPPrefix": "0.0.0.0/0",
		}
	}
	return unstructuredObject(InfraAPIVersion, "OpenStackClusterTemplate", name, map[string]any{
		"template": map[string]any{"spec": map[string]any{
			"identityRef": identityRef(),
			"managedSecurityGroups": map[string]any{
				"allowAllInClusterTraffic":   true,
				"allNodesSecurityGroupRules": []any{nodePort("udp"), nodePort("tcp")},
			},
		}},
	})
}

func openStackMachineTemplate(name string) *unstructured.Unstructured {
	return unstructuredObject(InfraAPIVersion, "OpenStackMachineTemplate", name, map[string]any{
		"template": map[string]any{"spec": map[string]any{
			"flavor":      placeholder,
			"identityRef": identityRef(),
			"image":       map[string]any{"id": placeholderImage},
		}},
	})
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

func kubeadmControlPlaneTemplate(name string) *controlplanev1.KubeadmControlPlaneTemplate {
	days := int32(21)
	return &controlplanev1.KubeadmControlPlaneTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: ControlPlaneAPIVersion, Kind: "KubeadmControlPlaneTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace},
		Spec: controlplanev1.KubeadmControlPlaneTemplateSpec{Template: controlplanev1.KubeadmControlPlaneTemplateResource{
			Spec: controlplanev1.KubeadmControlPlaneTemplateResourceSpec{
				Rollout: controlplanev1.KubeadmControlPlaneRolloutSpec{
					Before: controlplanev1.KubeadmControlPlaneRolloutBeforeSpec{CertificatesExpiryDays: days},
				},
				KubeadmConfigSpec: bootstrapv1.KubeadmConfigSpec{
					ClusterConfiguration: bootstrapv1.ClusterConfiguration{
						APIServer: bootstrapv1.APIServer{
							ExtraArgs: []bootstrapv1.Arg{arg("profiling", "false")},
							// Seeded so that features can append with "/-".
							ExtraVolumes: []bootstrapv1.HostPathMount{{
								Name: "webhooks", HostPath: "/etc/kubernetes/webhooks", MountPath: "/etc/kubernetes/webhooks",
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
					InitConfiguration: bootstrapv1.InitConfiguration{NodeRegistration: nodeRegistration()},
					JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: nodeRegistration()},
					Format:            bootstrapv1.CloudConfig,
					PreKubeadmCommands: []string{
						"rm -rf /var/lib/etcd/lost+found",
					},
					// Seeded so that features can append with "/-".
					PostKubeadmCommands: []string{"echo keel: kubeadm finished"},
				},
			},
		}},
	}
}

func kubeadmConfigTemplate(name string) *bootstrapv1.KubeadmConfigTemplate {
	return &bootstrapv1.KubeadmConfigTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: BootstrapAPIVersion, Kind: "KubeadmConfigTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace},
		Spec: bootstrapv1.KubeadmConfigTemplateSpec{Template: bootstrapv1.KubeadmConfigTemplateResource{
			Spec: bootstrapv1.KubeadmConfigSpec{
				JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: nodeRegistration()},
				Format:            bootstrapv1.CloudConfig,
				// Seeded so that features can append with "/-".
				PreKubeadmCommands: []string{"echo keel: joining"},
			},
		}},
	}
}
