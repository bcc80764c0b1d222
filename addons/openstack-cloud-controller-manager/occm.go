// Package occm renders the OpenStack cloud controller manager for a
// workload cluster: the upstream Helm chart (embedded, see upstream/) with
// the reference driver's values, and the kube-system/cloud-config Secret
// holding its cloud.conf.
//
// OCCM sets every Node's spec.providerID (without it Cluster API never links
// a Machine to its Node) and makes the load balancers of Services of type
// LoadBalancer; --cluster-name is the Magnum cluster's UUID, so that those
// load balancers ("Kubernetes … from cluster <uuid>") can be found and
// removed when the cluster is deleted.
package occm

import (
	"embed"
	"fmt"
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

// Name is the addon's name: its DaemonSet's and the release's.
const Name = "openstack-cloud-controller-manager"

// Upstream image, mirrored under container_infra_prefix.
const image = "registry.k8s.io/provider-os/openstack-cloud-controller-manager"

// Where the chart mounts the cloud-config Secret.
const (
	CloudConfigSecret    = "cloud-config"
	CloudConfigNamespace = "kube-system"
	configDir            = "/etc/config"
)

// Source is what the embedded chart was copied from (upstream/SOURCE), or
// an error when the binary was built without it.
func Source() (string, error) { return addons.Source(upstream, Name) }

// tagByMinor is the reference driver's OCCM release per Kubernetes minor;
// other minors get defaultTag.
var tagByMinor = map[string]string{
	"v1.22": "v1.22.2", "v1.23": "v1.23.4", "v1.24": "v1.24.6", "v1.25": "v1.25.6",
	"v1.26": "v1.26.4", "v1.27": "v1.27.3", "v1.28": "v1.28.3", "v1.29": "v1.29.1",
	"v1.30": "v1.30.3", "v1.31": "v1.31.4", "v1.32": "v1.32.1", "v1.33": "v1.33.1",
	"v1.34": "v1.34.1", "v1.35": "v1.35.0",
}

const defaultTag = "v1.35.0"

// Tag is the OCCM image tag of a cluster: the cloud_provider_tag label when
// set, else the reference's release for kube_tag's minor.
func Tag(label, kubeTag string) string {
	if label != "" {
		return label
	}
	if t, ok := tagByMinor[addons.KubeMinor(kubeTag)]; ok {
		return t
	}
	return defaultTag
}

// Params are a cluster's OCCM settings.
type Params struct {
	ClusterUUID string
	Tag         string // image tag (Tag)
	Prefix      string // container_infra_prefix
}

// Manifests renders the OCCM chart: ServiceAccount, RBAC and the DaemonSet
// on the control-plane nodes, reading kube-system/cloud-config.
func Manifests(p Params) ([]*unstructured.Unstructured, error) {
	if _, err := Source(); err != nil {
		return nil, err
	}
	// The reference's values (reference-driver-map §4.1): keel writes the
	// cloud-config Secret itself (it carries the cluster's credential);
	// the host's kubernetes PKI and CA bundle are mounted read-only.
	values := map[string]any{
		"image":   map[string]any{"repository": addons.MirrorImage(p.Prefix, image), "tag": p.Tag},
		"secret":  map[string]any{"enabled": true, "create": false, "name": CloudConfigSecret},
		"cluster": map[string]any{"name": p.ClusterUUID},
		"extraVolumes": []any{
			map[string]any{"name": "k8s-certs", "hostPath": map[string]any{"path": "/etc/kubernetes/pki"}},
			map[string]any{"name": "ca-certs", "hostPath": map[string]any{"path": "/etc/ssl/certs"}},
		},
		"extraVolumeMounts": []any{
			map[string]any{"name": "k8s-certs", "mountPath": "/etc/kubernetes/pki", "readOnly": true},
			map[string]any{"name": "ca-certs", "mountPath": "/etc/ssl/certs", "readOnly": true},
		},
	}
	return addons.RenderChart(upstream, "upstream/chart", addons.Release{Name: "openstack-ccm", Namespace: CloudConfigNamespace}, values)
}

// Cloud is what cloud.conf says: the cluster's credential and cloud, and
// the load-balancer settings from its labels.
type Cloud struct {
	AuthURL                     string
	Region                      string
	Interface                   string // public, internal, admin; empty is public
	ApplicationCredentialID     string
	ApplicationCredentialSecret string
	Insecure                    bool
	CACert                      string // PEM; written as ca.crt beside cloud.conf
	LBProvider                  string // octavia_provider
	LBMethod                    string // octavia_lb_algorithm
	CreateMonitor               bool   // octavia_lb_healthcheck
}

// CloudConf is the cloud.conf of OCCM (and the Cinder CSI driver), in the
// INI dialect they read (gcfg): every value quoted.
func CloudConf(c Cloud) []byte {
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "%s = %s\n", k, strconv.Quote(v)) }
	b.WriteString("[Global]\n")
	kv("auth-url", c.AuthURL)
	if c.Region != "" {
		kv("region", c.Region)
	}
	iface := strings.TrimSuffix(c.Interface, "URL")
	if iface == "" {
		iface = "public"
	}
	kv("os-endpoint-type", iface)
	kv("application-credential-id", c.ApplicationCredentialID)
	kv("application-credential-secret", c.ApplicationCredentialSecret)
	kv("tls-insecure", strconv.FormatBool(c.Insecure))
	if c.CACert != "" {
		kv("ca-file", configDir+"/ca.crt")
	}
	b.WriteString("\n[LoadBalancer]\n")
	if c.LBProvider != "" {
		kv("lb-provider", c.LBProvider)
	}
	if c.LBMethod != "" {
		kv("lb-method", c.LBMethod)
	}
	kv("create-monitor", strconv.FormatBool(c.CreateMonitor))
	return []byte(b.String())
}

// CloudConfig is the kube-system/cloud-config Secret (cloud.conf, and
// ca.crt when the cloud has a private CA) as an object to deliver.
func CloudConfig(c Cloud) (*unstructured.Unstructured, error) {
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: CloudConfigSecret, Namespace: CloudConfigNamespace},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"cloud.conf": CloudConf(c)},
	}
	if c.CACert != "" {
		s.Data["ca.crt"] = []byte(c.CACert)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return nil, err
	}
	delete(m["metadata"].(map[string]any), "creationTimestamp")
	return &unstructured.Unstructured{Object: m}, nil
}
