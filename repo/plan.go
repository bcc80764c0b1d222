package repo

// What a change of the repository does to the Cluster API objects of each
// cluster it touches: `keel plan` prints it, and review mode puts it in the
// pull request it opens.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/clusterclass/desired"
	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/compiler/plan"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// ClusterPlan is the plan of one cluster folder.
type ClusterPlan struct {
	Dir  string
	Plan *plan.Plan
}

// PlanChange computes, for each cluster whose rendered output (or
// ClusterClass) differs between base and head, what the change does to its
// Cluster API objects.
func PlanChange(ctx context.Context, bs, hs *gitstore.Snapshot) ([]ClusterPlan, error) {
	changed, err := gitstore.ChangedPaths(bs, hs)
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	classes := map[string]bool{}
	for _, p := range changed {
		if d, ok := intent.ClusterDirOfPath(p); ok && strings.HasPrefix(p, intent.RenderedPath(d)+"/") {
			dirs[d] = true
		}
		if parts := strings.Split(p, "/"); len(parts) > 1 && parts[0] == intent.ClusterClassesDir {
			classes[parts[1]] = true
		}
	}
	if len(classes) > 0 {
		all, err := intent.ClusterDirs(hs)
		if err != nil {
			return nil, err
		}
		for _, d := range all {
			if cl, _ := renderedCluster(hs, d); cl != nil && classes[cl.Spec.Topology.ClassRef.Name] {
				dirs[d] = true
			}
		}
	}
	var out []ClusterPlan
	classCache := map[string]*desired.Class{}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if p, err := adoptionPlan(bs, hs, d); err != nil || p != nil {
			if err != nil {
				return nil, err
			}
			out = append(out, *p)
			continue
		}
		b, err := revision(bs, d, classCache, "base")
		if err != nil {
			return nil, err
		}
		h, err := revision(hs, d, classCache, "head")
		if err != nil {
			return nil, err
		}
		if b.Cluster == nil && h.Cluster == nil {
			continue
		}
		p, err := plan.Compute(ctx, b, h)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		p.Note = caRotationNote(bs, hs, d)
		out = append(out, ClusterPlan{Dir: d, Plan: p})
	}
	return out, nil
}

// FormatPlans is `keel plan`'s text.
func FormatPlans(plans []ClusterPlan) string {
	if len(plans) == 0 {
		return "no cluster's rendered output changes\n"
	}
	var b strings.Builder
	for _, p := range plans {
		fmt.Fprintf(&b, "%s\n%s", p.Dir, p.Plan)
	}
	return b.String()
}

// renderedCluster reads a cluster's committed CAPI Cluster (nil if absent).
func renderedCluster(t intent.Tree, dir string) (*clusterv1.Cluster, error) {
	data, err := t.ReadFile(path.Join(intent.RenderedPath(dir), "cluster.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cl := &clusterv1.Cluster{}
	if err := yaml.Unmarshal(data, cl); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return cl, nil
}

// revision reads one revision of a cluster and the ClusterClass it names,
// from the revision's clusterclasses/ folder (else as this keel renders it).
func revision(t intent.Tree, dir string, cache map[string]*desired.Class, which string) (plan.Revision, error) {
	cl, err := renderedCluster(t, dir)
	if err != nil || cl == nil {
		return plan.Revision{}, err
	}
	addons, mgmt, err := renderedAddons(t, dir)
	if err != nil {
		return plan.Revision{}, err
	}
	name := cl.Spec.Topology.ClassRef.Name
	key := which + "/" + name
	if c, ok := cache[key]; ok {
		return plan.Revision{Class: c, Cluster: cl, Addons: addons, Management: mgmt}, nil
	}
	objs, err := classObjects(t, name)
	if err != nil {
		return plan.Revision{}, err
	}
	c, err := desired.NewClass(objs)
	if err != nil {
		return plan.Revision{}, err
	}
	cache[key] = c
	return plan.Revision{Class: c, Cluster: cl, Addons: addons, Management: mgmt}, nil
}

// renderedAddons reads the addon objects of a cluster's committed
// ClusterResourceSet payloads (its plain-text documents; Secrets are
// encrypted), and its cluster-autoscaler's objects, which keel applies to
// the management cluster.
func renderedAddons(t intent.Tree, dir string) (addons, mgmt []*unstructured.Unstructured, err error) {
	rendered := intent.RenderedPath(dir)
	files, err := FileNames(t, rendered)
	if err != nil {
		return nil, nil, err
	}
	var docs [][]byte
	for _, f := range files {
		if f == compiler.KustomizationFile || strings.HasPrefix(f, compiler.SecretFilePrefix) || !strings.HasSuffix(f, ".yaml") {
			continue
		}
		data, err := t.ReadFile(path.Join(rendered, f))
		if err != nil {
			return nil, nil, err
		}
		if f == compiler.AutoscalerFile {
			if mgmt, err = plan.ManagementObjects(data); err != nil {
				return nil, nil, fmt.Errorf("%s/%s: %w", dir, f, err)
			}
			continue
		}
		docs = append(docs, data)
	}
	if addons, err = plan.AddonObjects(docs); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	return addons, mgmt, nil
}

func classObjects(t intent.Tree, name string) ([]client.Object, error) {
	dir := intent.ClusterClassDir(name)
	files, err := FileNames(t, dir)
	if err != nil {
		return nil, err
	}
	var objs []client.Object
	for _, f := range files {
		if f == compiler.KustomizationFile || !strings.HasSuffix(f, ".yaml") {
			continue
		}
		data, err := t.ReadFile(path.Join(dir, f))
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, f, err)
		}
		objs = append(objs, u)
	}
	if len(objs) == 0 {
		return clusterclass.Objects(name)
	}
	return objs, nil
}

// adoptionPlan is the plan of the commit that renders a cluster keel
// adopted (nil for any other): its base has no rendered output, and its
// ClusterClass is the driver's, which the repository does not hold, so
// two revisions say nothing of what the apply does. What it does was
// judged by keel import against what ran, and recorded with the adoption:
// no machine change, or the changes taken with --adopt-changes.
func adoptionPlan(bs, hs *gitstore.Snapshot, dir string) (*ClusterPlan, error) {
	if bs.Exists(path.Join(intent.RenderedPath(dir), "cluster.yaml")) || !hs.Exists(path.Join(dir, intent.ClusterFile)) {
		return nil, nil
	}
	c, err := intent.ReadClusterDocument(hs, dir)
	if err != nil || !c.OnAdoptedClass() {
		return nil, err
	}
	effect := plan.NoOp
	if len(c.Adopted.Changes) > 0 {
		effect = plan.Rollout // a version change among them rolls machines
	}
	return &ClusterPlan{Dir: dir, Plan: &plan.Plan{Cluster: c.StackID, Effect: effect, Note: c.Adopted.Verdict()}}, nil
}
