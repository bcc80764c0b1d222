// Package cilium renders the Cilium CNI of a workload cluster
// (network_driver=cilium): Cilium's Helm chart (embedded, see upstream/)
// with the reference driver's values, delivered by the cluster's <uuid>
// ClusterResourceSet. Its agent DaemonSet, kube-system/cilium, is what
// makes the Nodes Ready.
package cilium

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
)

//go:embed all:upstream
var upstream embed.FS

// Name is the addon's name: the Helm release's and the agent DaemonSet's.
const Name = "cilium"

// Namespace is where the chart is rendered, as the reference renders it.
const Namespace = "kube-system"

// Source is what the embedded chart was copied from (upstream/SOURCE), or
// an error when the binary was built without it.
func Source() (string, error) { return addons.Source(upstream, Name) }

// Params are a cluster's Cilium settings, from its labels.
type Params struct {
	Tag      string // cilium_tag: the tag of the images of Cilium's release
	IPv4Pool string // cilium_ipv4pool: the cluster-pool IPAM CIDR
	HubbleUI bool   // cilium_hubble_ui_enabled: Hubble relay and UI
	Prefix   string // container_infra_prefix
	// dns_cluster_domain: where the relay finds the agents; empty is the
	// chart's cluster.local.
	ClusterDomain string
}

// image is one image the chart's values name, at its values path.
type image struct {
	path []string
	// release: the image is built and tagged with each Cilium release, so
	// it takes cilium_tag. The others (Hubble UI, certgen, Envoy, the etcd
	// operator, the node-init script) are versioned on their own: they keep
	// the chart's tag, and its digest when pulled from upstream.
	release bool
}

// images are every image of the chart's values (all under quay.io/cilium),
// so that a mirror or tag applies to whatever a value enables.
var images = []image{
	{path: []string{"image"}, release: true},
	{path: []string{"operator", "image"}, release: true},
	{path: []string{"preflight", "image"}, release: true},
	{path: []string{"hubble", "relay", "image"}, release: true},
	{path: []string{"clustermesh", "apiserver", "image"}, release: true},
	{path: []string{"hubble", "ui", "frontend", "image"}},
	{path: []string{"hubble", "ui", "backend", "image"}},
	{path: []string{"certgen", "image"}},
	{path: []string{"envoy", "image"}},
	{path: []string{"etcd", "image"}},
	{path: []string{"nodeinit", "image"}},
}

// Manifests renders the Cilium chart: the agent DaemonSet kube-system/cilium,
// the operator Deployment (which registers Cilium's CRDs itself, so the
// chart has none), their RBAC and cilium-config, and Hubble relay and UI
// when enabled.
func Manifests(p Params) ([]*unstructured.Unstructured, error) {
	if _, err := Source(); err != nil {
		return nil, err
	}
	values, err := Values(p)
	if err != nil {
		return nil, err
	}
	return addons.RenderChart(upstream, "upstream/chart", addons.Release{Name: Name, Namespace: Namespace}, values)
}

// Payload is Manifests as one YAML stream (addons.Marshal), what the
// <uuid> ConfigMap carries. It depends on p alone and rendering costs
// about a hundred milliseconds (Helm parses the whole chart every time),
// while most clusters of a repository share their Cilium labels: so each
// p is rendered once, and `keel compile` of thousands of Cilium clusters
// renders a handful of charts. At most maxPayloads are kept.
func Payload(p Params) (string, error) {
	payloads.Lock()
	s, ok := payloads.m[p]
	payloads.Unlock()
	if ok {
		return s, nil
	}
	objs, err := Manifests(p)
	if err != nil {
		return "", err
	}
	b, err := addons.Marshal(objs)
	if err != nil {
		return "", err
	}
	payloads.Lock()
	defer payloads.Unlock()
	if len(payloads.m) >= maxPayloads {
		clear(payloads.m)
	}
	payloads.m[p] = string(b)
	return string(b), nil
}

// maxPayloads bounds the memo of Payload (about 30 KB each).
const maxPayloads = 256

var payloads = struct {
	sync.Mutex
	m map[Params]string
}{m: map[Params]string{}}

// Values are the chart values of a cluster: the reference driver's
// (reference-driver-map §4.1), and what keeps the render deterministic.
func Values(p Params) (map[string]any, error) {
	defaults, err := chartValues()
	if err != nil {
		return nil, err
	}
	values := map[string]any{
		// Chained with the portmap plugin so that hostPort works.
		"cni": map[string]any{"chainingMode": "portmap"},
		// kube-proxy keeps running: Cilium serves only the Services
		// labelled service.kubernetes.io/service-proxy-name=cilium (the
		// reference works around cilium/cilium#9207 this way), with
		// session affinity as kube-proxy would.
		"k8s":             map[string]any{"serviceProxyName": "cilium"},
		"sessionAffinity": true,
		"ipam": map[string]any{
			"mode":     "cluster-pool",
			"operator": map[string]any{"clusterPoolIPv4PodCIDRList": []any{p.IPv4Pool}},
		},
		"hubble": map[string]any{
			"enabled": true,
			// Hubble's mTLS certificates would be generated by Helm with
			// random keys on every render (or by a Job that is a Helm
			// hook, which a ClusterResourceSet cannot run): the render
			// would never be the same twice. So Hubble runs without TLS,
			// and, without the relay, listens on no TCP port at all (its
			// flows stay on the agent's local socket), so that no pod can
			// read them unauthenticated.
			"tls":           map[string]any{"enabled": false},
			"listenAddress": hubbleListenAddress(p.HubbleUI),
			"relay":         map[string]any{"enabled": p.HubbleUI},
			"ui":            map[string]any{"enabled": p.HubbleUI},
		},
	}
	if p.ClusterDomain != "" {
		// The reference leaves cluster.local: a relay in a cluster with
		// another DNS domain would never find its peers.
		set(values, []string{"hubble", "peerService", "clusterDomain"}, p.ClusterDomain)
	}
	for _, im := range images {
		def, ok := lookup(defaults, im.path).(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: chart values have no %s", Name, strings.Join(im.path, "."))
		}
		v, err := imageValues(def, im.release, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", Name, strings.Join(im.path, "."), err)
		}
		set(values, im.path, v)
	}
	return values, nil
}

func hubbleListenAddress(relay bool) string {
	if relay {
		return ":4244"
	}
	return ""
}

// imageValues are the repository, tag and digest of one image. Cilium's
// own images take cilium_tag and no digest: the chart's digest (empty in
// the source chart anyway) would pin the chart's version whatever the tag
// says. The others keep the chart's tag and digest. Under a mirror, images
// are <prefix>/cilium-<name> as the reference mirrors them, by tag only
// (a mirror's digests are its own).
func imageValues(def map[string]any, release bool, p Params) (map[string]any, error) {
	repo, _ := def["repository"].(string)
	tag, _ := def["tag"].(string)
	if repo == "" || tag == "" {
		return nil, fmt.Errorf("no repository or tag in the chart's values")
	}
	digest, _ := def["digest"].(string)
	if release || p.Prefix != "" {
		digest = ""
	}
	if release {
		tag = p.Tag
	}
	// The digest is set with its tag, so that the pair always comes from
	// the same values.yaml.
	return map[string]any{
		"repository": MirrorImage(p.Prefix, repo),
		"tag":        tag,
		"digest":     digest,
		"useDigest":  digest != "",
	}, nil
}

// MirrorImage is a Cilium image under the registry mirror prefix
// (container_infra_prefix) as the reference names it:
// quay.io/cilium/<name> is <prefix>/cilium-<name>. No prefix keeps image.
func MirrorImage(prefix, image string) string {
	if prefix == "" {
		return image
	}
	name := image
	if i := strings.Index(image, "/"); i >= 0 && strings.ContainsAny(image[:i], ".:") {
		name = image[i+1:] // the registry host
	}
	return strings.TrimSuffix(prefix, "/") + "/" + strings.ReplaceAll(name, "cilium/", "cilium-")
}

// chartValues are the embedded chart's values.yaml, parsed once: it is
// read-only here, and parsing its 3,500 lines took a fifth of a render.
var chartValues = sync.OnceValues(parseChartValues)

func parseChartValues() (map[string]any, error) {
	data, err := fs.ReadFile(upstream, "upstream/chart/values.yaml")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, addons.ErrNotEmbedded)
	}
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: values.yaml: %w", Name, err)
	}
	return v, nil
}

func lookup(m map[string]any, path []string) any {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// set puts v at path in m, keeping what the maps on the way already hold.
func set(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}
