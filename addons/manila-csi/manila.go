// Package manilacsi renders the Manila CSI driver for a workload cluster:
// the upstream Helm chart (embedded, see upstream/) with the reference
// driver's values, the kube-system/csi-manila-secrets Secret its
// StorageClasses name (the cluster's credential: delivered only in an
// encrypted Secret), and, with a share network, its StorageClass.
package manilacsi

import (
	"embed"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openkeel/keel/addons"
)

//go:embed all:upstream
var upstream embed.FS

// Name is the addon's name: its Helm release's, as the reference names it.
const Name = "manila-csi"

// Namespace the driver and its Secret are in.
const Namespace = "kube-system"

// Provisioner is the NFS share protocol's CSI driver name (the chart's
// driverName, manila.csi.openstack.org, prefixed by the protocol).
const Provisioner = "nfs.manila.csi.openstack.org"

// SecretName is the Secret of the driver's OpenStack credential.
const SecretName = "csi-manila-secrets"

// DefaultShareType is the share type the driver uses when a StorageClass
// names none (its own default, as Manila's conventional default type).
const DefaultShareType = "default"

// Upstream image of the plugin, mirrored under container_infra_prefix.
const image = "registry.k8s.io/provider-os/manila-csi-plugin"

// Source is what the embedded chart was copied from (upstream/SOURCE), or
// an error when the binary was built without it.
func Source() (string, error) { return addons.Source(upstream, Name) }

// Params are a cluster's Manila CSI settings.
type Params struct {
	ClusterUUID string
	Prefix      string // container_infra_prefix
	Tag         string // manila_csi_plugin_tag
	Sidecars    addons.CSISidecars
	// ShareNetworkID (manila_csi_share_network_id): without it, no
	// StorageClass, as in the reference.
	ShareNetworkID string
}

// Manifests renders the chart (RBAC, the controller StatefulSet, the node
// DaemonSet, the CSIDriver) and, with a share network, the StorageClass.
func Manifests(p Params) ([]*unstructured.Unstructured, error) {
	if _, err := Source(); err != nil {
		return nil, err
	}
	img := func(repo, tag string) map[string]any {
		return map[string]any{"image": addons.Image(p.Prefix, repo, tag)}
	}
	// The reference's values (reference-driver-map §4.1): the node plugin
	// runs on every node whatever its taints, the controller may run on
	// control-plane nodes. Unlike the reference, the cluster's UUID tags
	// the shares it creates, as the Cinder driver's volumes.
	values := map[string]any{
		"csimanila": map[string]any{
			"image":     addons.Image(p.Prefix, image, p.Tag),
			"clusterID": p.ClusterUUID,
		},
		"nodeplugin": map[string]any{
			"registrar":   img(addons.CSINodeDriverRegistrarImage, p.Sidecars.NodeDriverRegistrar),
			"tolerations": []any{map[string]any{"operator": "Exists"}},
		},
		"controllerplugin": map[string]any{
			"provisioner": img(addons.CSIProvisionerImage, p.Sidecars.Provisioner),
			"snapshotter": img(addons.CSISnapshotterImage, p.Sidecars.Snapshotter),
			"resizer":     img(addons.CSIResizerImage, p.Sidecars.Resizer),
			"tolerations": []any{
				map[string]any{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"},
				map[string]any{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"},
			},
		},
	}
	objs, err := addons.RenderChart(upstream, "upstream/chart", addons.Release{Name: Name, Namespace: Namespace}, values)
	if err != nil {
		return nil, err
	}
	if p.ShareNetworkID != "" {
		objs = append(objs, StorageClass(DefaultShareType, p.ShareNetworkID))
	}
	return objs, nil
}

// StorageClass is share-<type>: NFS shares of the share type in the share
// network, the driver authenticating with csi-manila-secrets for every
// operation (the reference's eight secret parameters).
func StorageClass(shareType, shareNetworkID string) *unstructured.Unstructured {
	params := map[string]any{"type": shareType, "shareNetworkID": shareNetworkID}
	for _, op := range []string{"provisioner", "controller-expand", "node-stage", "node-publish"} {
		params["csi.storage.k8s.io/"+op+"-secret-name"] = SecretName
		params["csi.storage.k8s.io/"+op+"-secret-namespace"] = Namespace
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion":           "storage.k8s.io/v1",
		"kind":                 "StorageClass",
		"metadata":             map[string]any{"name": "share-" + addons.RFC1123(shareType)},
		"provisioner":          Provisioner,
		"parameters":           params,
		"reclaimPolicy":        "Delete",
		"volumeBindingMode":    "Immediate",
		"allowVolumeExpansion": true,
	}}
}

// Cloud is the cluster's credential and cloud, as the driver reads them
// from its Secret.
type Cloud struct {
	AuthURL                     string
	Region                      string
	Interface                   string // public, internal, admin; empty is public
	ApplicationCredentialID     string
	ApplicationCredentialSecret string
	Insecure                    bool
	CACert                      string // PEM
}

// Secret is kube-system/csi-manila-secrets, with the reference's keys
// (reference-driver-map §4.1) and the endpoint type, as cloud.conf has it.
// A private CA is given inline (os-certAuthority): the reference's
// os-certAuthorityPath names /etc/config/ca.crt, which its Manila pods do
// not mount.
func Secret(c Cloud) (*unstructured.Unstructured, error) {
	iface := strings.TrimSuffix(c.Interface, "URL")
	if iface == "" {
		iface = "public"
	}
	data := map[string][]byte{
		"os-authURL":                     []byte(c.AuthURL),
		"os-endpointType":                []byte(iface),
		"os-applicationCredentialID":     []byte(c.ApplicationCredentialID),
		"os-applicationCredentialSecret": []byte(c.ApplicationCredentialSecret),
		"os-TLSInsecure":                 []byte(strconv.FormatBool(c.Insecure)),
	}
	if c.Region != "" {
		data["os-region"] = []byte(c.Region)
	}
	if c.CACert != "" {
		data["os-certAuthority"] = []byte(c.CACert)
	}
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: Namespace},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return nil, err
	}
	delete(m["metadata"].(map[string]any), "creationTimestamp")
	return &unstructured.Unstructured{Object: m}, nil
}
