// Package plan tells what a change of a cluster's rendered output does to
// its Cluster API objects: it computes the desired state of both revisions
// with Cluster API's own generator (clusterclass/desired) and compares the
// KubeadmControlPlane, the MachineDeployments, their machine and bootstrap
// templates and the OpenStackCluster, classifying each change as a no-op,
// an in-place update or a rollout (new machines), the way Cluster API
// decides it: a new machine or bootstrap template, a new Kubernetes
// version, kubeadm configuration or failure domain replaces machines;
// replicas, metadata and health checks do not. The addons the cluster's
// ClusterResourceSets deliver (their plain-text payloads) are compared
// object by object: Cluster API re-applies a changed payload in place.
package plan

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/clusterclass/desired"
)

// Effect of a change on machines.
type Effect string

// Effects, from mildest to strongest.
const (
	NoOp    Effect = "no-op"
	InPlace Effect = "in place"
	Rollout Effect = "rolls machines"
	Created Effect = "created"
	Deleted Effect = "deleted"
)

func stronger(a, b Effect) Effect {
	rank := map[Effect]int{NoOp: 0, InPlace: 1, Rollout: 2, Created: 3, Deleted: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// Change is what happens to one object.
type Change struct {
	Object string   `json:"object"`
	Effect Effect   `json:"effect"`
	Fields []string `json:"fields,omitempty"`
}

// Plan is the effect of a change on one cluster.
type Plan struct {
	Cluster               string   `json:"cluster"`
	Effect                Effect   `json:"effect"`
	InfrastructureCluster Change   `json:"infrastructureCluster"`
	ControlPlane          Change   `json:"controlPlane"`
	MachineDeployments    []Change `json:"machineDeployments,omitempty"`
	// Addons are the workload-cluster objects whose payload changes.
	Addons []Change `json:"addons,omitempty"`
	// Management are the objects keel itself applies to the management
	// cluster beside the Cluster (the cluster-autoscaler) that change.
	Management []Change `json:"management,omitempty"`
	// Note says what the plan cannot compute from two revisions: an
	// adoption's verdict, which `keel import` took against what ran.
	Note string `json:"note,omitempty"`
}

// Revision is one revision of a cluster: its ClusterClass (with templates)
// and its Cluster; a nil Cluster means the cluster does not exist.
type Revision struct {
	Class   *desired.Class
	Cluster *clusterv1.Cluster
	// Addons are the objects the cluster's ClusterResourceSets deliver to
	// the workload cluster (AddonObjects).
	Addons []*unstructured.Unstructured
	// Management are the cluster's other objects in the management
	// cluster, the cluster-autoscaler's (ManagementObjects).
	Management []*unstructured.Unstructured
}

// Compute compares two revisions of one cluster.
func Compute(ctx context.Context, base, head Revision) (*Plan, error) {
	switch {
	case base.Cluster == nil && head.Cluster == nil:
		return nil, fmt.Errorf("no cluster in either revision")
	case base.Cluster == nil:
		return &Plan{Cluster: head.Cluster.Name, Effect: Created}, nil
	case head.Cluster == nil:
		return &Plan{Cluster: base.Cluster.Name, Effect: Deleted}, nil
	}
	b, err := base.Class.Generate(ctx, base.Cluster)
	if err != nil {
		return nil, fmt.Errorf("base revision: %w", err)
	}
	h, err := head.Class.Generate(ctx, head.Cluster)
	if err != nil {
		return nil, fmt.Errorf("head revision: %w", err)
	}
	p := &Plan{Cluster: head.Cluster.Name, Effect: NoOp}

	p.InfrastructureCluster = compare("OpenStackCluster", spec(b.InfrastructureCluster), spec(h.InfrastructureCluster), func(string) Effect { return InPlace })

	cp := compare("KubeadmControlPlane", controlPlaneSpec(b.ControlPlane.Object), controlPlaneSpec(h.ControlPlane.Object), controlPlaneEffect)
	cpm := compare("control-plane OpenStackMachineTemplate", spec(b.ControlPlane.InfrastructureMachineTemplate), spec(h.ControlPlane.InfrastructureMachineTemplate), always(Rollout))
	p.ControlPlane = merge("control plane", cp, cpm)

	names := map[string]bool{}
	for n := range b.MachineDeployments {
		names[n] = true
	}
	for n := range h.MachineDeployments {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		bm, hm := b.MachineDeployments[n], h.MachineDeployments[n]
		var c Change
		switch {
		case bm == nil:
			c = Change{Object: "nodegroup " + n, Effect: Created}
		case hm == nil:
			c = Change{Object: "nodegroup " + n, Effect: Deleted}
		default:
			md := compare("MachineDeployment", machineDeploymentSpec(bm.Object), machineDeploymentSpec(hm.Object), machineDeploymentEffect)
			bt := compare("KubeadmConfigTemplate", spec(bm.BootstrapTemplate), spec(hm.BootstrapTemplate), always(Rollout))
			it := compare("OpenStackMachineTemplate", spec(bm.InfrastructureMachineTemplate), spec(hm.InfrastructureMachineTemplate), always(Rollout))
			c = merge("nodegroup "+n, md, bt, it)
		}
		if c.Effect != NoOp {
			p.MachineDeployments = append(p.MachineDeployments, c)
		}
	}
	p.Addons = compareObjects("addon", "removed from the payload (left in the workload cluster)", base.Addons, head.Addons)
	p.Management = compareObjects("management", "deleted (pruned by the reconciler)", base.Management, head.Management)
	for _, c := range p.changes() {
		p.Effect = stronger(p.Effect, c.Effect)
	}
	return p, nil
}

func (p *Plan) changes() []Change {
	cs := append([]Change{p.InfrastructureCluster, p.ControlPlane}, p.MachineDeployments...)
	cs = append(cs, p.Addons...)
	return append(cs, p.Management...)
}

// compareObjects compares objects by kind, namespace and name, named
// "<what> <kind> <namespace>/<name>". Every change, a new or a removed
// object too, is in place: Cluster API applies a changed addon payload to
// the running workload cluster (and leaves an object removed from it),
// the reconciler applies and prunes the management cluster's objects.
func compareObjects(what, removed string, base, head []*unstructured.Unstructured) []Change {
	key := func(u *unstructured.Unstructured) string {
		if u.GetNamespace() == "" {
			return u.GetKind() + " " + u.GetName()
		}
		return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
	}
	b, h, keys := map[string]map[string]any{}, map[string]map[string]any{}, map[string]bool{}
	for _, u := range base {
		b[key(u)], keys[key(u)] = u.Object, true
	}
	for _, u := range head {
		h[key(u)], keys[key(u)] = u.Object, true
	}
	var out []Change
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		name := what + " " + k
		switch bo, ho := b[k], h[k]; {
		case bo == nil:
			out = append(out, Change{Object: name, Effect: InPlace, Fields: []string{"created"}})
		case ho == nil:
			out = append(out, Change{Object: name, Effect: InPlace, Fields: []string{removed}})
		default:
			if c := compareAt(name, "", bo, ho, always(InPlace)); c.Effect != NoOp {
				out = append(out, c)
			}
		}
	}
	return out
}

// AddonObjects are the objects in ClusterResourceSet payloads, given the
// rendered documents of a cluster: every ConfigMap's data values, as YAML
// streams (Secrets are encrypted in Git and not compared).
func AddonObjects(docs [][]byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, d := range docs {
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(d, &cm); err != nil || cm.Kind != "ConfigMap" {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
			objs, err := decodeStream(cm.Data[k])
			if err != nil {
				return nil, fmt.Errorf("ConfigMap %s, %s: %w", cm.Name, k, err)
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

// ManagementObjects are the objects of a cluster's rendered
// cluster-autoscaler file (compiler.AutoscalerFile), a YAML stream.
func ManagementObjects(data []byte) ([]*unstructured.Unstructured, error) {
	return decodeStream(string(data))
}

func decodeStream(data string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			return nil, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

func always(e Effect) func(string) Effect { return func(string) Effect { return e } }

// controlPlaneEffect: what Cluster API's KubeadmControlPlane controller
// rolls out. Replicas scale; machine metadata, health checks, rollout and
// remediation settings are applied in place; the version, the kubeadm
// configuration and the machine template replace machines.
func controlPlaneEffect(path string) Effect {
	switch {
	case path == "spec.replicas", strings.HasPrefix(path, "spec.machineTemplate.metadata"),
		strings.HasPrefix(path, "spec.rollout"), strings.HasPrefix(path, "spec.remediation"),
		strings.HasPrefix(path, "spec.machineTemplate.spec.deletion"):
		return InPlace
	}
	return Rollout
}

// machineDeploymentEffect: a MachineDeployment rolls out when its machine
// template spec changes (version, failure domain, templates); replicas,
// metadata, deletion and rollout settings are in place.
func machineDeploymentEffect(path string) Effect {
	if strings.HasPrefix(path, "spec.template.spec.") &&
		!strings.HasPrefix(path, "spec.template.spec.deletion") &&
		!strings.HasPrefix(path, "spec.template.spec.minReadySeconds") &&
		!strings.HasPrefix(path, "spec.template.spec.readinessGates") {
		return Rollout
	}
	return InPlace
}

func merge(name string, cs ...Change) Change {
	out := Change{Object: name, Effect: NoOp}
	for _, c := range cs {
		out.Effect = stronger(out.Effect, c.Effect)
		for _, f := range c.Fields {
			out.Fields = append(out.Fields, c.Object+": "+f)
		}
	}
	return out
}

// compare lists the leaf fields that differ and the strongest effect.
func compare(name string, a, b map[string]any, effect func(path string) Effect) Change {
	return compareAt(name, "spec", a, b, effect)
}

// compareAt is compare of trees found at prefix ("" for whole objects).
func compareAt(name, prefix string, a, b map[string]any, effect func(path string) Effect) Change {
	c := Change{Object: name, Effect: NoOp}
	fa, fb := map[string]string{}, map[string]string{}
	flatten(prefix, a, fa)
	flatten(prefix, b, fb)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		va, oka := fa[k]
		vb, okb := fb[k]
		if oka == okb && va == vb {
			continue
		}
		switch {
		case !oka:
			c.Fields = append(c.Fields, fmt.Sprintf("%s: + %s", k, vb))
		case !okb:
			c.Fields = append(c.Fields, fmt.Sprintf("%s: - %s", k, va))
		default:
			c.Fields = append(c.Fields, fmt.Sprintf("%s: %s → %s", k, va, vb))
		}
		c.Effect = stronger(c.Effect, effect(k))
	}
	return c
}

// flatten turns a JSON tree into leaf paths (list items by index).
func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if prefix != "" {
				k = prefix + "." + k
			}
			flatten(k, e, out)
		}
	case []any:
		for i, e := range x {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), e, out)
		}
	default:
		b, _ := json.Marshal(x)
		s := string(b)
		if len(s) > 80 {
			s = s[:77] + "..."
		}
		out[prefix] = s
	}
}

func spec(u *unstructured.Unstructured) map[string]any {
	if u == nil {
		return nil
	}
	s, _ := u.Object["spec"].(map[string]any)
	return s
}

// controlPlaneSpec drops the generated name of the machine template
// reference (a new name is a consequence, not a cause).
func controlPlaneSpec(u *unstructured.Unstructured) map[string]any {
	s := runtime.DeepCopyJSONValue(spec(u))
	m, _ := s.(map[string]any)
	unstructured.RemoveNestedField(m, "machineTemplate", "spec", "infrastructureRef", "name")
	return m
}

func machineDeploymentSpec(md *clusterv1.MachineDeployment) map[string]any {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(md)
	if err != nil {
		return nil
	}
	s, _ := m["spec"].(map[string]any)
	unstructured.RemoveNestedField(s, "template", "spec", "bootstrap", "configRef", "name")
	unstructured.RemoveNestedField(s, "template", "spec", "infrastructureRef", "name")
	return s
}

// String renders a plan for people.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster %s: %s\n", p.Cluster, p.Effect)
	if p.Note != "" {
		fmt.Fprintf(&b, "  %s\n", p.Note)
	}
	for _, c := range p.changes() {
		if c.Effect == "" || c.Effect == NoOp {
			continue
		}
		fmt.Fprintf(&b, "  %s: %s\n", c.Object, c.Effect)
		for _, f := range c.Fields {
			fmt.Fprintf(&b, "    %s\n", f)
		}
	}
	return b.String()
}
