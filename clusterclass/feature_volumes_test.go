package clusterclass

import "testing"

func TestEtcdAndDockerVolumes(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{
		VarEnableEtcdVolume: true, VarEtcdVolumeSize: 10, VarEtcdVolumeType: "fast",
		VarEnableDockerVolume: true, VarDockerVolumeSize: 40, VarAvailabilityZone: "nova",
	}})
	equal(t, cpMachines(st), "spec.template.spec.additionalBlockDevices", []any{
		map[string]any{"name": "etcd", "sizeGiB": 10, "storage": map[string]any{"type": "Volume", "volume": map[string]any{"type": "fast", "availabilityZone": map[string]any{"name": "nova"}}}},
		map[string]any{"name": "docker", "sizeGiB": 40, "storage": map[string]any{"type": "Volume", "volume": map[string]any{"availabilityZone": map[string]any{"name": "nova"}}}},
	})
	cp := kcp(st)
	equal(t, cp, "spec.kubeadmConfigSpec.diskSetup.partitions.0.device", "/dev/vdb")
	equal(t, cp, "spec.kubeadmConfigSpec.diskSetup.partitions.1.device", "/dev/vdc")
	equal(t, cp, "spec.kubeadmConfigSpec.diskSetup.filesystems.0", map[string]any{
		"device": "/dev/vdb1", "filesystem": "ext4", "label": "etcd_disk", "extraOpts": []any{"-F", "-E", "lazy_itable_init=1,lazy_journal_init=1"}})
	equal(t, cp, "spec.kubeadmConfigSpec.diskSetup.filesystems.1.label", "docker_disk")
	equal(t, cp, "spec.kubeadmConfigSpec.mounts", []any{[]any{"LABEL=etcd_disk", "/var/lib/etcd"}, []any{"LABEL=docker_disk", "/var/lib/containerd"}})

	kct, w := md(t, st, "default-worker")
	equal(t, w, "spec.template.spec.additionalBlockDevices.0.name", "docker")
	equal(t, w, "spec.template.spec.additionalBlockDevices.0.sizeGiB", 40)
	equal(t, kct, "spec.template.spec.diskSetup.partitions.0.device", "/dev/vdb")
	equal(t, kct, "spec.template.spec.mounts", []any{[]any{"LABEL=docker_disk", "/var/lib/containerd"}})
}

// Without an etcd volume the container volume is the first extra disk, and
// a SCSI image names it /dev/sdb.
func TestDockerVolumeOnlyOnSCSI(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarEnableDockerVolume: true, VarDockerVolumeSize: 20, VarHardwareDiskBus: "scsi"}})
	equal(t, kcp(st), "spec.kubeadmConfigSpec.diskSetup.partitions", []any{map[string]any{"device": "/dev/sdb", "layout": true, "overwrite": false, "tableType": "gpt"}})
	equal(t, kcp(st), "spec.kubeadmConfigSpec.diskSetup.filesystems.0.device", "/dev/sdb1")
	equal(t, cpMachines(st), "spec.template.spec.additionalBlockDevices.0", map[string]any{"name": "docker", "sizeGiB": 20, "storage": map[string]any{"type": "Volume"}})
}

func TestEtcdVolumeOnlyOnControlPlane(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarEnableEtcdVolume: true, VarEtcdVolumeSize: 8}})
	equal(t, kcp(st), "spec.kubeadmConfigSpec.mounts", []any{[]any{"LABEL=etcd_disk", "/var/lib/etcd"}})
	kct, w := md(t, st, "default-worker")
	absent(t, w, "spec.template.spec.additionalBlockDevices")
	absent(t, kct, "spec.template.spec.diskSetup")
}

func TestNoVolumes(t *testing.T) {
	st := generate(t, tc{})
	absent(t, cpMachines(st), "spec.template.spec.additionalBlockDevices")
	absent(t, kcp(st), "spec.kubeadmConfigSpec.diskSetup")
	absent(t, kcp(st), "spec.kubeadmConfigSpec.mounts")
}

// A nodegroup may have its own container volume (nodegroup docker_volume_size).
func TestDockerVolumePerNodeGroup(t *testing.T) {
	st := generate(t, tc{overrides: map[string]map[string]any{"data": {VarEnableDockerVolume: true, VarDockerVolumeSize: 100}}})
	_, w := md(t, st, "data")
	equal(t, w, "spec.template.spec.additionalBlockDevices.0.sizeGiB", 100)
	_, def := md(t, st, "default-worker")
	absent(t, def, "spec.template.spec.additionalBlockDevices")
}
