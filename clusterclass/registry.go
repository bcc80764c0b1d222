package clusterclass

import "sync"

// Registry lists the features of the ClusterClass in the order their patches
// apply. The order is part of the contract, not an accident of linking: a
// later patch sees what an earlier one wrote. The constraints, each pinned by
// a test:
//
//   - containerd_config creates the workers' files and preKubeadmCommands
//     lists, so it comes before every feature that appends to them
//     (operating_system, which appends Flatcar's node-name fix-up; the
//     reference let containerd replace that list and break Flatcar workers).
//   - boot_volume and volumes write disjoint machine fields; volumes creates
//     diskSetup and mounts whole.
//   - the kube-apiserver flags are appended in this order, which is the
//     order they appear in the rendered KubeadmControlPlane.
func Registry() []Feature { return registry() }

// valueFeatures is the registry built once: a compile reads the features'
// Values and must not rebuild every variable schema and patch to do so.
var valueFeatures = sync.OnceValue(registry)

func registry() []Feature {
	return []Feature{
		// Machines and the infrastructure cluster.
		clusterIdentity(),
		flavors(),
		images(),
		sshKey(),
		serverGroups(),
		bootVolume(),
		volumes(),
		apiServerLoadBalancer(),
		apiServerFloatingIP(),
		disableAPIServerFloatingIP(),
		apiServerPort(),
		externalNetwork(),
		networks(),
		controlPlaneAvailabilityZones(),
		// Bootstrap: containerd first (creates the workers' lists).
		containerdConfig(),
		operatingSystem(),
		imageRepository(),
		// kube-apiserver and kubelet flags.
		cloudProvider(),
		admissionPlugins(),
		auditLog(),
		tls(),
		openIDConnect(),
		keystoneAuth(),
		kubeletServingCertificate(),
		nodeLabels(),
		// Machines' files, appended after containerd_config creates the
		// workers' list.
		caRotation(),
	}
}
