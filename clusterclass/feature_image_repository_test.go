package clusterclass

import "testing"

func TestImageRepository(t *testing.T) {
	st := generate(t, tc{
		vars:      map[string]any{VarImageRepository: "registry.example.com/k8s"},
		overrides: map[string]map[string]any{"edge": {VarImageRepository: "edge.example.com/k8s"}},
	})
	equal(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.imageRepository", "registry.example.com/k8s")
	kct, _ := md(t, st, "default-worker")
	equal(t, kct, "spec.template.spec.clusterConfiguration.imageRepository", "registry.example.com/k8s")
	edge, _ := md(t, st, "edge")
	equal(t, edge, "spec.template.spec.clusterConfiguration.imageRepository", "edge.example.com/k8s")

	st = generate(t, tc{})
	absent(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.imageRepository")
}

func TestCoreDNSAndEtcdImageTags(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarCoreDNSImageTag: "v1.11.3", VarEtcdImageTag: "3.5.16-0"}})
	equal(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.dns.imageTag", "v1.11.3")
	equal(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.etcd.local.imageTag", "3.5.16-0")
	st = generate(t, tc{})
	absent(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.dns")
	absent(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.etcd.local.imageTag")
}
