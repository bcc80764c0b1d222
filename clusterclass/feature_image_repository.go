package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// Kubernetes images: the registry mirror (container_infra_prefix,
// overridable per nodegroup) and the CoreDNS and etcd tags (coredns_tag,
// etcd_tag; empty keeps kubeadm's choice for the Kubernetes version).
const (
	VarImageRepository = "imageRepository"
	VarCoreDNSImageTag = "corednsImageTag"
	VarEtcdImageTag    = "etcdImageTag"
)

func imageRepository() Feature {
	const cc = kcpSpec + "/clusterConfiguration"
	return Feature{
		Name:   "image_repository",
		Values: imageRepositoryValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarImageRepository, optionalString("Registry that mirrors the Kubernetes images (container_infra_prefix); empty for registry.k8s.io.")),
			variable(VarCoreDNSImageTag, optionalString("CoreDNS image tag (coredns_tag); empty for kubeadm's default.")),
			variable(VarEtcdImageTag, optionalString("etcd image tag (etcd_tag); empty for kubeadm's default.")),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name:      "imageRepository",
				EnabledIf: `{{ ne .imageRepository "" }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(), fromVariable("add", cc+"/imageRepository", VarImageRepository)),
					// kubeadm join reads the cluster's configuration, not
					// this one; the field only records the nodegroup's
					// mirror, as the reference does. What a worker actually
					// pulls through the mirror is its sandbox image
					// (containerdConfig, overridden together).
					definition(selectWorkerBootstrap(), fromTemplate("add", kctSpec+"/clusterConfiguration", `{"imageRepository": {{ .imageRepository | toJson }}}`)),
				},
			},
			{
				Name:        "corednsImageTag",
				EnabledIf:   `{{ ne .corednsImageTag "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(), fromTemplate("add", cc+"/dns", `{"imageTag": {{ .corednsImageTag | toJson }}}`))},
			},
			{
				Name:        "etcdImageTag",
				EnabledIf:   `{{ ne .etcdImageTag "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(), fromVariable("add", cc+"/etcd/local/imageTag", VarEtcdImageTag))},
			},
		},
	}
}

func imageRepositoryValues(in *Inputs) (map[string]any, error) {
	l := in.Labels
	return map[string]any{
		VarCoreDNSImageTag: l[schemas.LabelCorednsTag],
		VarEtcdImageTag:    l[schemas.LabelEtcdTag],
		VarImageRepository: l[schemas.LabelContainerInfraPrefix],
	}, nil
}
