// Package calico renders the Calico CNI for a workload cluster
// (network_driver=calico): Calico's stock manifest (manifests/calico.yaml:
// calico-node DaemonSet, calico-kube-controllers, the CRDs, RBAC) of the
// release calico_tag names, embedded from the Go module cache (see
// upstream/), with the cluster's pod network and images.
//
// Without a CNI no Node becomes Ready, so no cluster completes: this is
// delivered by the cluster's <uuid> ClusterResourceSet.
package calico

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/addons"
)

//go:embed all:upstream
var upstream embed.FS

// Name is the addon's name and the data key of its payload.
const Name = "calico"

// NodeDaemonSet is the DaemonSet that makes Nodes Ready.
const NodeDaemonSet = "calico-node"

// Releases are the Calico releases keel carries, oldest first: those whose
// stock manifests the Go module proxy serves (addons/sources.yaml). The
// label catalogue (schemas/labels.cue, calico_tag) allows exactly these.
var Releases = []string{"v3.28.5", "v3.30.2"}

// Upstream registry of the images. The stock manifests pull from Docker
// Hub; the reference driver pulls from quay.io (Calico's own mirror,
// without Docker Hub's pull rate limits), and so does keel.
const registry = "quay.io/calico"

// Source is what the embedded manifests were copied from (upstream/SOURCE),
// or an error when the binary was built without them.
func Source() (string, error) { return addons.Source(upstream, Name) }

// Params are a cluster's Calico settings.
type Params struct {
	Tag      string // calico_tag: the release (one of Releases)
	IPv4Pool string // calico_ipv4pool: the pod network
	Prefix   string // container_infra_prefix
}

// Payload is the rendered manifest of p as one YAML stream (the data of
// the payload ConfigMap). The manifest is large (half a megabyte for
// v3.30) and the same for every cluster with the same p, so the last few
// payloads are kept: a repository of thousands of clusters renders it a
// handful of times, not once per cluster.
func Payload(p Params) (string, error) { return cache.Get(p, Manifests) }

const cacheSize = 8

var cache = addons.NewPayloadCache[Params](cacheSize)

// Manifests renders the release p.Tag: every object of the stock manifest,
// Lists flattened and nulls dropped, with
//   - the images at quay.io/calico (or <prefix>/calico, the reference's
//     mirroring rule), at the release's tag;
//   - CALICO_IPV4POOL_CIDR set to the pod network. The stock manifest leaves
//     it commented out and calico-node then guesses from kubeadm's
//     configuration; stating it makes the pool what the label says even on
//     a node whose kubeadm ConfigMap it cannot read.
func Manifests(p Params) ([]*unstructured.Unstructured, error) {
	if !slices.Contains(Releases, p.Tag) {
		return nil, fmt.Errorf("calico_tag %q: keel carries Calico %s", p.Tag, strings.Join(Releases, ", "))
	}
	if p.IPv4Pool == "" {
		return nil, fmt.Errorf("calico: no pod network (calico_ipv4pool)")
	}
	base, err := release(p.Tag)
	if err != nil {
		return nil, err
	}
	objs := make([]*unstructured.Unstructured, len(base))
	for i, o := range base {
		objs[i] = o.DeepCopy()
	}
	for _, o := range objs {
		spec, ok, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
		if !ok {
			continue
		}
		for _, field := range []string{"initContainers", "containers"} {
			cs, _ := spec[field].([]any)
			for _, c := range cs {
				c, ok := c.(map[string]any)
				if !ok {
					continue
				}
				img, _ := c["image"].(string)
				if img != "" {
					if c["image"], err = mirror(p.Prefix, img, p.Tag); err != nil {
						return nil, fmt.Errorf("calico %s, %s %s: %w", p.Tag, o.GetKind(), o.GetName(), err)
					}
				}
				if o.GetKind() == "DaemonSet" && o.GetName() == NodeDaemonSet && c["name"] == "calico-node" {
					c["env"] = setEnv(c["env"], "CALICO_IPV4POOL_CIDR", p.IPv4Pool)
				}
			}
		}
		if err := unstructured.SetNestedMap(o.Object, spec, "spec", "template", "spec"); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// mirror moves a calico image to quay.io/calico, or <prefix>/calico, and
// checks that it is the release's: a manifest copied from the wrong source
// fails here rather than mixing releases in a cluster.
func mirror(prefix, image, tag string) (string, error) {
	i := strings.LastIndex(image, "/")
	name, imgTag, ok := strings.Cut(image[i+1:], ":")
	if !ok || imgTag != tag || !strings.Contains(image[:max(i, 0)], "calico") {
		return "", fmt.Errorf("image %s is not a Calico %s image", image, tag)
	}
	repo := registry
	if prefix != "" {
		repo = strings.TrimSuffix(prefix, "/") + "/calico"
	}
	return repo + "/" + name + ":" + tag, nil
}

// setEnv sets name to value in a container's env, in place of an existing
// entry (which may be a valueFrom), else appended.
func setEnv(env any, name, value string) []any {
	list, _ := env.([]any)
	out := make([]any, 0, len(list)+1)
	for _, e := range list {
		if m, ok := e.(map[string]any); ok && m["name"] == name {
			continue
		}
		out = append(out, e)
	}
	return append(out, map[string]any{"name": name, "value": value})
}

// release parses the embedded manifest of tag once.
func release(tag string) ([]*unstructured.Unstructured, error) {
	parsed.Lock()
	r, ok := parsed.byTag[tag]
	if !ok {
		r = &parsedRelease{}
		parsed.byTag[tag] = r
	}
	parsed.Unlock()
	r.once.Do(func() {
		data, err := fs.ReadFile(upstream, "upstream/"+tag+".yaml")
		if err != nil {
			r.err = fmt.Errorf("%s %s: %w", Name, tag, addons.ErrNotEmbedded)
			return
		}
		r.objs, r.err = addons.Decode(string(data))
		if r.err != nil {
			r.err = fmt.Errorf("%s %s: %w", Name, tag, r.err)
		}
	})
	return r.objs, r.err
}

type parsedRelease struct {
	once sync.Once
	objs []*unstructured.Unstructured
	err  error
}

var parsed = struct {
	sync.Mutex
	byTag map[string]*parsedRelease
}{byTag: map[string]*parsedRelease{}}
