package clusterclass

import (
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// Extra Cinder volumes: a dedicated etcd volume on control-plane machines
// (etcd_volume_size) and a container storage volume on every machine
// (docker_volume_size), partitioned, formatted and mounted by cloud-init.
// Device names follow the image's hw_disk_bus (scsi: /dev/sdX, else
// /dev/vdX); the first extra volume is "b", the second "c".
const (
	VarHardwareDiskBus    = "hardwareDiskBus"
	VarEnableDockerVolume = "enableDockerVolume"
	VarDockerVolumeSize   = "dockerVolumeSize"
	VarDockerVolumeType   = "dockerVolumeType"
	VarEnableEtcdVolume   = "enableEtcdVolume"
	VarEtcdVolumeSize     = "etcdVolumeSize"
	VarEtcdVolumeType     = "etcdVolumeType"
	VarAvailabilityZone   = "availabilityZone"
)

// Template fragments shared by the patches below.
const (
	tplDevicePrefix = `{{- $dev := "/dev/vd" }}{{ if eq .hardwareDiskBus "scsi" }}{{ $dev = "/dev/sd" }}{{ end }}`
	// tplVolume is the storage of a block device; TYPE is replaced by the
	// variable holding its Cinder type. Empty type and zone are left out.
	tplVolume = `
    type: Volume
    {{- if or TYPE .availabilityZone }}
    volume:
      {{- with TYPE }}
      type: {{ . | toJson }}
      {{- end }}
      {{- with $.availabilityZone }}
      availabilityZone:
        name: {{ . | toJson }}
      {{- end }}
    {{- end }}`
)

// blockDevice renders one additionalBlockDevices entry.
func blockDevice(name, sizeVar, typeVar string) string {
	return `
- name: ` + name + `
  sizeGiB: {{ .` + sizeVar + ` }}
  storage:` + strings.ReplaceAll(tplVolume, "TYPE", "."+typeVar)
}

// diskSetup renders a kubeadm diskSetup: for each volume {condition, device
// letter, filesystem label}, one GPT partition spanning the disk and an ext4
// filesystem on it.
func diskSetup(volumes ...[3]string) string {
	parts, fss := "partitions:", "\nfilesystems:"
	for _, v := range volumes {
		cond, letter, label := v[0], v[1], v[2]
		parts += `
{{- if ` + cond + ` }}
- device: {{ $dev }}` + letter + `
  layout: true
  overwrite: false
  tableType: gpt
{{- end }}`
		fss += `
{{- if ` + cond + ` }}
- device: {{ $dev }}` + letter + `1
  filesystem: ext4
  label: ` + label + `
  extraOpts: ["-F", "-E", "lazy_itable_init=1,lazy_journal_init=1"]
{{- end }}`
	}
	return tplDevicePrefix + "\n" + parts + fss
}

func volumes() Feature {
	return Feature{
		Name:   "volumes",
		Values: volumesValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarHardwareDiskBus, optionalString("hw_disk_bus of the image (scsi names disks /dev/sdX, anything else /dev/vdX).")),
			variable(VarEnableDockerVolume, boolSchema("Give every machine a container storage volume mounted on /var/lib/containerd (docker_volume_size).", false)),
			variable(VarDockerVolumeSize, intSchema("Size in GiB of the container storage volume.", 0)),
			variable(VarDockerVolumeType, optionalString("Cinder type of the container storage volume (docker_volume_type); empty for the default.")),
			variable(VarEnableEtcdVolume, boolSchema("Give control-plane machines an etcd volume mounted on /var/lib/etcd (etcd_volume_size > 0).", false)),
			variable(VarEtcdVolumeSize, intSchema("Size in GiB of the etcd volume.", 0)),
			variable(VarEtcdVolumeType, optionalString("Cinder type of the etcd volume (etcd_volume_type); empty for the default.")),
			variable(VarAvailabilityZone, optionalString("Availability zone of the extra volumes (availability_zone); empty for none.")),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name:      "controlPlaneVolumes",
				EnabledIf: `{{ or .enableEtcdVolume .enableDockerVolume }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlaneMachines(), fromTemplate("add", "/spec/template/spec/additionalBlockDevices",
						`{{- if .enableEtcdVolume }}`+blockDevice("etcd", VarEtcdVolumeSize, VarEtcdVolumeType)+`
{{- end }}
{{- if .enableDockerVolume }}`+blockDevice("docker", VarDockerVolumeSize, VarDockerVolumeType)+`
{{- end }}`)),
					definition(selectControlPlane(),
						// etcd takes the first extra disk; the container
						// volume the second when there is an etcd volume.
						fromTemplate("add", kcpSpec+"/diskSetup", diskSetup(
							[3]string{".enableEtcdVolume", "b", "etcd_disk"},
							[3]string{"and .enableDockerVolume .enableEtcdVolume", "c", "docker_disk"},
							[3]string{"and .enableDockerVolume (not .enableEtcdVolume)", "b", "docker_disk"},
						)),
						fromTemplate("add", kcpSpec+"/mounts", `{{- if .enableEtcdVolume }}
- ["LABEL=etcd_disk", "/var/lib/etcd"]
{{- end }}
{{- if .enableDockerVolume }}
- ["LABEL=docker_disk", "/var/lib/containerd"]
{{- end }}`),
					),
				},
			},
			{
				Name:      "workerDockerVolume",
				EnabledIf: `{{ .enableDockerVolume }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectWorkerMachines(), fromTemplate("add", "/spec/template/spec/additionalBlockDevices",
						blockDevice("docker", VarDockerVolumeSize, VarDockerVolumeType))),
					definition(selectWorkerBootstrap(),
						fromTemplate("add", kctSpec+"/diskSetup", diskSetup([3]string{"true", "b", "docker_disk"})),
						withValue("add", kctSpec+"/mounts", [][]string{{"LABEL=docker_disk", "/var/lib/containerd"}}),
					),
				},
			},
		},
	}
}

// volumesValues: the cluster's docker_volume_size, else the template's.
func volumesValues(in *Inputs) (map[string]any, error) {
	l := in.Labels
	dockerSize := intent.Deref(in.Cluster.DockerVolumeSize)
	if dockerSize == 0 {
		dockerSize = intent.Deref(in.Template.DockerVolumeSize)
	}
	etcdSize, err := in.Int(schemas.LabelEtcdVolumeSize)
	return map[string]any{
		VarAvailabilityZone:   l[schemas.LabelAvailabilityZone],
		VarDockerVolumeSize:   dockerSize,
		VarDockerVolumeType:   l[schemas.LabelDockerVolumeType],
		VarEnableDockerVolume: dockerSize > 0,
		VarEnableEtcdVolume:   etcdSize > 0,
		VarEtcdVolumeSize:     etcdSize,
		VarEtcdVolumeType:     l[schemas.LabelEtcdVolumeType],
		VarHardwareDiskBus:    in.Facts.ImageDiskBuses[in.Facts.ImageUUID(in.Template.ImageID)],
	}, err
}
