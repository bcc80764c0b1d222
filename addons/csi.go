package addons

import (
	"regexp"
	"strings"
)

// CSISidecars are the tags of the Kubernetes CSI sidecar images
// (registry.k8s.io/sig-storage), which the reference sets from one label
// each (csi_attacher_tag, …) for both the Cinder and the Manila driver.
type CSISidecars struct {
	Attacher            string
	Provisioner         string
	Snapshotter         string
	Resizer             string
	LivenessProbe       string
	NodeDriverRegistrar string
}

// Upstream repositories of the CSI sidecars.
const (
	CSIAttacherImage            = "registry.k8s.io/sig-storage/csi-attacher"
	CSIProvisionerImage         = "registry.k8s.io/sig-storage/csi-provisioner"
	CSISnapshotterImage         = "registry.k8s.io/sig-storage/csi-snapshotter"
	CSIResizerImage             = "registry.k8s.io/sig-storage/csi-resizer"
	CSILivenessProbeImage       = "registry.k8s.io/sig-storage/livenessprobe"
	CSINodeDriverRegistrarImage = "registry.k8s.io/sig-storage/csi-node-driver-registrar"
)

// Image is a chart's image value: repository (mirrored under prefix, see
// MirrorImage) and tag.
func Image(prefix, repository, tag string) map[string]any {
	return map[string]any{"repository": MirrorImage(prefix, repository), "tag": tag}
}

var nonAlnum = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// RFC1123 is a Cinder volume or Manila share type's name as part of a
// StorageClass name, as the reference converts it (runs of other
// characters become "-", lower-cased), without leading or trailing "-",
// which the API server would refuse.
func RFC1123(s string) string {
	return strings.Trim(strings.ToLower(nonAlnum.ReplaceAllString(s, "-")), "-")
}
