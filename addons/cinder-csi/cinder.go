// Package cindercsi renders the Cinder CSI driver for a workload cluster:
// the upstream Helm chart (embedded, see upstream/) with the reference
// driver's values, and the cluster's default StorageClass.
//
// The driver reads kube-system/cloud-config, the Secret OCCM reads too
// (addons/openstack-cloud-controller-manager), so it carries no credential
// of its own: nothing it renders is secret.
package cindercsi

import (
	"embed"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/addons"
)

//go:embed all:upstream
var upstream embed.FS

// Name is the addon's name: its Helm release's, as the reference names it.
const Name = "cinder-csi"

// Namespace the driver runs in.
const Namespace = "kube-system"

// Provisioner is the CSI driver's name, the provisioner of its
// StorageClasses.
const Provisioner = "cinder.csi.openstack.org"

// Upstream image of the plugin, mirrored under container_infra_prefix.
const image = "registry.k8s.io/provider-os/cinder-csi-plugin"

// cloudConfigSecret is the Secret keel delivers (cloud.conf, ca.crt), as
// occm.CloudConfigSecret; not imported, to keep the addons independent.
const cloudConfigSecret = "cloud-config"

// DefaultClassAnnotation marks the cluster's default StorageClass.
const DefaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// cinderDefaultType is the name Cinder gives its built-in default volume
// type; the reference makes no StorageClass of it.
const cinderDefaultType = "__DEFAULT__"

// Source is what the embedded chart was copied from (upstream/SOURCE), or
// an error when the binary was built without it.
func Source() (string, error) { return addons.Source(upstream, Name) }

// Params are a cluster's Cinder CSI settings.
type Params struct {
	ClusterUUID string
	Prefix      string // container_infra_prefix
	Tag         string // cinder_csi_plugin_tag
	Sidecars    addons.CSISidecars
	// VolumeType is the Cinder volume type of the default StorageClass
	// (boot_volume_type); empty is Cinder's default type.
	VolumeType string
}

// Manifests renders the chart (RBAC, the controller Deployment, the node
// DaemonSet, the CSIDriver) and the cluster's default StorageClass.
func Manifests(p Params) ([]*unstructured.Unstructured, error) {
	if _, err := Source(); err != nil {
		return nil, err
	}
	img := func(repo, tag string) map[string]any {
		return map[string]any{"image": addons.Image(p.Prefix, repo, tag)}
	}
	controlPlane := []any{
		map[string]any{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"},
		map[string]any{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"},
	}
	// The reference's values (reference-driver-map §4.1): the plugin reads
	// keel's cloud-config Secret, mounted where the reference mounts it
	// (cloud.conf's ca-file is /etc/config/ca.crt), instead of the chart's
	// host paths; the chart's StorageClasses are replaced by keel's; the
	// cluster's UUID tags the volumes it creates; the controller may run
	// on control-plane nodes.
	values := map[string]any{
		"csi": map[string]any{
			"attacher":            img(addons.CSIAttacherImage, p.Sidecars.Attacher),
			"provisioner":         img(addons.CSIProvisionerImage, p.Sidecars.Provisioner),
			"snapshotter":         img(addons.CSISnapshotterImage, p.Sidecars.Snapshotter),
			"resizer":             img(addons.CSIResizerImage, p.Sidecars.Resizer),
			"livenessprobe":       img(addons.CSILivenessProbeImage, p.Sidecars.LivenessProbe),
			"nodeDriverRegistrar": img(addons.CSINodeDriverRegistrarImage, p.Sidecars.NodeDriverRegistrar),
			"plugin": map[string]any{
				"image":   addons.Image(p.Prefix, image, p.Tag),
				"volumes": []any{},
				"volumeMounts": []any{
					map[string]any{"name": "cloud-config", "mountPath": "/etc/kubernetes", "readOnly": true},
					map[string]any{"name": "cloud-config", "mountPath": "/etc/config", "readOnly": true},
				},
				"controllerPlugin": map[string]any{"tolerations": controlPlane},
			},
		},
		"secret":       map[string]any{"enabled": true, "create": false, "name": cloudConfigSecret},
		"storageClass": map[string]any{"enabled": false},
		"clusterID":    p.ClusterUUID,
	}
	objs, err := addons.RenderChart(upstream, "upstream/chart", addons.Release{Name: Name, Namespace: Namespace}, values)
	if err != nil {
		return nil, err
	}
	return append(objs, StorageClass(p.VolumeType)), nil
}

// StorageClass is the cluster's default StorageClass, block-<type>, of the
// Cinder volume type named (empty, or Cinder's __DEFAULT__, is Cinder's
// default type: no type parameter, named block-default). The reference
// makes one per volume type of the cloud and marks Cinder's default type's
// the default; keel renders without asking Cinder, so it makes the one of
// the type the cluster's own root volumes use, and marks it the default.
func StorageClass(volumeType string) *unstructured.Unstructured {
	params := map[string]any{}
	name := "default"
	if volumeType != "" && volumeType != cinderDefaultType {
		params["type"] = volumeType
		name = addons.RFC1123(volumeType)
	}
	sc := map[string]any{
		"apiVersion": "storage.k8s.io/v1",
		"kind":       "StorageClass",
		"metadata": map[string]any{
			"name":        "block-" + name,
			"annotations": map[string]any{DefaultClassAnnotation: "true"},
		},
		"provisioner":          Provisioner,
		"reclaimPolicy":        "Delete",
		"volumeBindingMode":    "Immediate",
		"allowVolumeExpansion": true,
	}
	if len(params) > 0 {
		sc["parameters"] = params
	}
	return &unstructured.Unstructured{Object: sc}
}
