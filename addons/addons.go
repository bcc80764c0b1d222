// Package addons renders the workload-cluster addons (one folder each:
// openstack-cloud-controller-manager/, …) that keel's ClusterResourceSets
// deliver. Rendering is pure and deterministic, as the compiler that calls
// it: upstream charts are embedded in the binary (see README.md) and
// rendered in memory with Helm's template engine, without a cluster.
package addons

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"golang.org/x/mod/semver"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons/internal/bitnamicommon"
)

// ErrNotEmbedded is returned when an addon's upstream files are not in the
// binary: it was built without `make addons`.
var ErrNotEmbedded = fmt.Errorf("upstream files not embedded: run `make addons` (go run ./hack/addons) before building")

// Source is what an addon's embedded upstream files were copied from
// (upstream/SOURCE, written by make addons), or ErrNotEmbedded when the
// binary was built without them.
func Source(files fs.FS, addon string) (string, error) {
	b, err := fs.ReadFile(files, "upstream/SOURCE")
	if err != nil {
		return "", fmt.Errorf("%s: %w", addon, ErrNotEmbedded)
	}
	return string(b), nil
}

// Release names the Helm release a chart is rendered as.
type Release struct {
	Name, Namespace string
}

// RenderChart renders the chart at dir of files with values, as `helm
// template` would for a first install, and returns its objects in Helm's
// install order with List objects flattened (Cluster API's
// ClusterResourceSet controller cannot apply `kind: List`). A chart that
// depends on Bitnami's common library gets keel's stand-in for it. Hooks
// are refused: nothing would run them.
func RenderChart(files fs.FS, dir string, rel Release, values map[string]any) ([]*unstructured.Unstructured, error) {
	ch, err := loadChart(files, dir)
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{
		Name: rel.Name, Namespace: rel.Namespace, Revision: 1, IsInstall: true,
	}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	out, err := engine.Render(ch, vals)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", ch.Name(), err)
	}
	for name := range out {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(out, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(out, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", ch.Name(), err)
	}
	if len(hooks) > 0 {
		return nil, fmt.Errorf("chart %s: hook %s cannot be delivered by a ClusterResourceSet", ch.Name(), hooks[0].Path)
	}
	var objs []*unstructured.Unstructured
	for _, m := range manifests {
		o, err := Decode(m.Content)
		if err != nil {
			return nil, fmt.Errorf("chart %s, %s: %w", ch.Name(), m.Name, err)
		}
		objs = append(objs, o...)
	}
	// Once more, now that Lists are flattened: their items take their
	// kind's place (Helm orders by the List's kind, unknown, last).
	rank := map[string]int{}
	for i, k := range releaseutil.InstallOrder {
		rank[k] = i + 1
	}
	order := func(o *unstructured.Unstructured) int {
		if r, ok := rank[o.GetKind()]; ok {
			return r
		}
		return len(rank) + 1
	}
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int { return order(a) - order(b) })
	return objs, nil
}

// loadChart reads a chart (and its charts/ subcharts) from files.
func loadChart(files fs.FS, dir string) (*chart.Chart, error) {
	var buf []*loader.BufferedFile
	err := fs.WalkDir(files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		buf = append(buf, &loader.BufferedFile{Name: strings.TrimPrefix(p, dir+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(buf) == 0 {
		return nil, ErrNotEmbedded
	}
	ch, err := loader.LoadFiles(buf)
	if err != nil {
		return nil, err
	}
	for _, dep := range ch.Metadata.Dependencies {
		if dep.Name != "common" || hasDependency(ch, "common") {
			continue
		}
		common, err := loadChart(bitnamicommon.Files, ".")
		if err != nil {
			return nil, err
		}
		ch.AddDependency(common)
	}
	return ch, nil
}

func hasDependency(ch *chart.Chart, name string) bool {
	for _, d := range ch.Dependencies() {
		if d.Name() == name {
			return true
		}
	}
	return false
}

// Decode parses a YAML stream into objects, dropping empty documents and
// null fields and flattening Lists.
func Decode(data string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	// In the stream's order (Helm's SplitManifests returns a map): the
	// order is the order of application, and the bytes must not vary.
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(data)))
	for {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		// Charts leave empty fields (annotations: with nothing under it) as
		// null; Cluster API's merge patch would read null as "delete", so
		// an empty field is left out, as if the chart had not written it.
		dropNulls(m)
		out = append(out, Flatten(&unstructured.Unstructured{Object: m})...)
	}
	return out, nil
}

func dropNulls(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(x)
		case []any:
			for _, it := range x {
				if mm, ok := it.(map[string]any); ok {
					dropNulls(mm)
				}
			}
		}
	}
}

// Flatten returns the items of a List (any kind ending in "List" with
// items), recursively, or the object itself.
func Flatten(o *unstructured.Unstructured) []*unstructured.Unstructured {
	items, ok := o.Object["items"].([]any)
	if !ok || !strings.HasSuffix(o.GetKind(), "List") {
		return []*unstructured.Unstructured{o}
	}
	var out []*unstructured.Unstructured
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, Flatten(&unstructured.Unstructured{Object: m})...)
		}
	}
	return out
}

// Marshal renders objects as one YAML stream, keys sorted, so that the
// same objects always give the same bytes.
func Marshal(objs []*unstructured.Unstructured) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(data)
	}
	return b.Bytes(), nil
}

// MirrorImage is image under the registry mirror prefix (the label
// container_infra_prefix), as the reference driver mirrors the images of
// the charts it renders: <prefix>/<last path segment>, with the CSI
// livenessprobe renamed csi-livenessprobe. No prefix keeps image.
func MirrorImage(prefix, image string) string {
	if prefix == "" {
		return image
	}
	name := path.Base(image)
	if strings.HasPrefix(name, "livenessprobe") {
		name = "csi-" + name
	}
	return strings.TrimSuffix(prefix, "/") + "/" + name
}

// KubeMinor is the "v<major>.<minor>" of a kube_tag (with or without its
// v), which picks an addon's release per Kubernetes minor; "" when the tag
// is not a version.
func KubeMinor(kubeTag string) string {
	if !strings.HasPrefix(kubeTag, "v") {
		kubeTag = "v" + kubeTag
	}
	return semver.MajorMinor(kubeTag)
}
