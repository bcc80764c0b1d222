package simulator

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"

	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Variables of the Magnum ClusterClass the simulator understands (see
// clusterclass/): they decide the flavor and image of the OpenStackMachines.
// They are repeated here rather than imported so that the simulator keeps
// working whatever the ClusterClass package is being changed into.
const (
	varControlPlaneFlavor     = "controlPlaneFlavor"
	varFlavor                 = "flavor"
	varImageUUID              = "imageUUID"
	varClusterIdentityRefName = "clusterIdentityRefName"
)

// roleControlPlane names the control plane in object names and templates.
const roleControlPlane = "control-plane"

// desiredState is what the topology of a Cluster asks for, as the CAPI
// topology controller would compute it from the ClusterClass.
type desiredState struct {
	version      string
	identity     string // the clouds.yaml Secret of CAPO's identityRef
	controlPlane desiredGroup
	workers      []desiredGroup // topology order
}

// desiredGroup is the control plane or one MachineDeployment topology entry.
type desiredGroup struct {
	// name is the topology name of a MachineDeployment ("" for the control plane).
	name string
	// replicas is nil when the autoscaler owns the MachineDeployment's replicas.
	replicas *int32
	// minSize is the autoscaler minimum, used as the initial replicas.
	minSize     int32
	labels      map[string]string
	annotations map[string]string
	machine     machineSpec
}

// machineSpec is what makes a Machine up to date: a Machine built from
// another spec is rolled out.
type machineSpec struct {
	flavor string
	image  string
}

// templateName is the content-addressed name of the OpenStackMachineTemplate
// of a group: a changed flavor or image gives a new template, and the
// KubeadmControlPlane or MachineDeployment pointing at it rolls out, as CAPI's
// topology controller does when a template changes.
func templateName(cluster, group string, m machineSpec, identity string) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", m.flavor, m.image, identity)
	return fmt.Sprintf("%s-%s-%s", cluster, group, suffix(h.Sum32()))
}

// suffix renders n in the 5-character alphabet Kubernetes uses for generated
// names.
func suffix(n uint32) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[n%uint32(len(alphabet))]
		n /= uint32(len(alphabet))
	}
	return string(b)
}

// stableSuffix derives the "random" suffix of an object name from the
// Cluster's UID and a purpose, so that creating it again after a crash or a
// stale cache read finds the existing object instead of making a second one.
func stableSuffix(uid, purpose string) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s", uid, purpose)
	return suffix(h.Sum32())
}

// desiredFromTopology reads the topology of c.
func desiredFromTopology(c *clusterv1.Cluster) (desiredState, error) {
	t := &c.Spec.Topology
	vars := variableStrings(t.Variables)
	d := desiredState{version: t.Version, identity: vars[varClusterIdentityRefName]}
	if d.identity == "" {
		d.identity = c.Name + "-cloud-config"
	}
	cpVars := variableStrings(t.ControlPlane.Variables.Overrides)
	cpReplicas := int32(1)
	if t.ControlPlane.Replicas != nil {
		cpReplicas = *t.ControlPlane.Replicas
	}
	d.controlPlane = desiredGroup{
		replicas:    &cpReplicas,
		labels:      t.ControlPlane.Metadata.Labels,
		annotations: t.ControlPlane.Metadata.Annotations,
		machine: machineSpec{
			flavor: cmp.Or(cpVars[varControlPlaneFlavor], vars[varControlPlaneFlavor]),
			image:  cmp.Or(cpVars[varImageUUID], vars[varImageUUID]),
		},
	}
	for _, md := range t.Workers.MachineDeployments {
		over := variableStrings(md.Variables.Overrides)
		g := desiredGroup{
			name:        md.Name,
			replicas:    md.Replicas,
			labels:      md.Metadata.Labels,
			annotations: md.Metadata.Annotations,
			machine: machineSpec{
				flavor: cmp.Or(over[varFlavor], vars[varFlavor]),
				image:  cmp.Or(over[varImageUUID], vars[varImageUUID]),
			},
		}
		if md.Replicas == nil {
			// Autoscaled: CAPI starts from the autoscaler's minimum (and
			// from 1 without one), then leaves replicas to the autoscaler.
			g.minSize = 1
			if v, ok := md.Metadata.Annotations[clusterv1.AutoscalerMinSizeAnnotation]; ok {
				n, err := strconv.ParseInt(v, 10, 32)
				if err != nil || n < 0 {
					return desiredState{}, fmt.Errorf("machine deployment %s: annotation %s=%q is not a count", md.Name, clusterv1.AutoscalerMinSizeAnnotation, v)
				}
				g.minSize = int32(n)
			}
		}
		d.workers = append(d.workers, g)
	}
	return d, nil
}

// variableStrings decodes the string-valued variables; other values (the
// load balancer object, booleans) do not matter to the simulator.
func variableStrings(vars []clusterv1.ClusterVariable) map[string]string {
	out := make(map[string]string, len(vars))
	for _, v := range vars {
		var s string
		if json.Unmarshal(v.Value.Raw, &s) == nil {
			out[v.Name] = s
		}
	}
	return out
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// imageField is the OpenStackMachine spec.image of an image: its id when it
// is a UUID (CAPO's schema requires one there), else a name filter, as an
// image the compiler could not resolve to a UUID is still a Glance name.
func imageParam(image string) infrav1.ImageParam {
	if uuidPattern.MatchString(image) {
		return infrav1.ImageParam{ID: ptr.To(image)}
	}
	if image == "" {
		image = "unknown"
	}
	return infrav1.ImageParam{Filter: &infrav1.ImageFilter{Name: ptr.To(image)}}
}
