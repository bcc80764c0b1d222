// Package compiler turns one Magnum cluster (its template, the cluster, its
// nodegroups and the OpenStack facts recorded at API time) into the Cluster
// API objects keel commits next to it. It is pure: no I/O, no clock, no
// randomness (names and keys are generated at API time and stored with the
// intent), and deterministic: the same input always gives the same bytes.
package compiler

import (
	"encoding/json"
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/internal/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/schemas"
)

// Labels on the CAPI Cluster and its children.
const (
	// LabelClusterUUID ties CAPI objects to the Magnum cluster (and selects
	// its ClusterResourceSets).
	LabelClusterUUID = "cluster-uuid"
	// LabelNodeGroup and LabelNodeRole are synced by CAPI to the Nodes.
	LabelNodeGroup = "node.cluster.x-k8s.io/nodegroup"
	LabelNodeRole  = "node-role.kubernetes.io/"
)

// Input is everything the compiler needs for one cluster.
type Input struct {
	Template   intent.ClusterTemplate
	Cluster    intent.Cluster
	NodeGroups []intent.NodeGroup
	Facts      Facts
}

// Facts are OpenStack values resolved when the API accepted the change, so
// that compiling needs no OpenStack access.
type Facts struct {
	// Flavor names by Magnum flavor_id (name or ID as the user gave it).
	FlavorNames map[string]string `json:"flavor_names,omitempty"`
	// ImageUUIDs by Magnum image_id (name or ID).
	ImageUUIDs map[string]string `json:"image_uuids,omitempty"`
	// ExternalNetworkID is the resolved template external network.
	ExternalNetworkID string `json:"external_network_id,omitempty"`
}

// Document is one rendered file, relative to the cluster's rendered folder.
type Document struct {
	Path string
	Data []byte
}

// Compile renders the Cluster API objects of one cluster.
func Compile(in Input) ([]Document, error) {
	c := &in.Cluster
	if c.StackID == "" {
		return nil, fmt.Errorf("cluster %s has no stack_id", c.UUID)
	}
	if c.ClusterClass == "" {
		return nil, fmt.Errorf("cluster %s does not record its ClusterClass", c.UUID)
	}
	labels := effectiveLabels(c.Labels)
	master, workers, err := splitNodeGroups(in.NodeGroups)
	if err != nil {
		return nil, err
	}
	vars, err := clusterVariables(in)
	if err != nil {
		return nil, err
	}
	cluster := &clusterv1.Cluster{
		TypeMeta: metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      c.StackID,
			Namespace: kube.Namespace,
			Labels:    map[string]string{LabelClusterUUID: c.UUID},
		},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{
				Pods:          clusterv1.NetworkRanges{CIDRBlocks: []string{podCIDR(in.Template, labels)}},
				Services:      clusterv1.NetworkRanges{CIDRBlocks: []string{labels[schemas.LabelServiceClusterIPRange]}},
				ServiceDomain: labels[schemas.LabelDNSClusterDomain],
			},
			Topology: clusterv1.Topology{
				ClassRef: clusterv1.ClusterClassRef{Name: c.ClusterClass},
				Version:  labels[schemas.LabelKubeTag],
				ControlPlane: clusterv1.ControlPlaneTopology{
					Replicas: int32Ptr(master.NodeCount),
				},
				Variables: vars,
			},
		},
	}
	for _, ng := range workers {
		md := clusterv1.MachineDeploymentTopology{
			Class: clusterclass.WorkerClass,
			Name:  ng.Name,
			Metadata: clusterv1.ObjectMeta{Labels: map[string]string{
				LabelNodeRole + ng.Role: "",
				LabelNodeGroup:          ng.Name,
			}},
			Replicas: int32Ptr(ng.NodeCount),
		}
		if ng.FlavorID != nil && *ng.FlavorID != intent.Deref(c.FlavorID) {
			md.Variables.Overrides = append(md.Variables.Overrides, variableValue(clusterclass.VarFlavor, in.Facts.flavorName(*ng.FlavorID)))
		}
		if ng.ImageID != nil && *ng.ImageID != in.Template.ImageID {
			md.Variables.Overrides = append(md.Variables.Overrides, variableValue(clusterclass.VarImageUUID, in.Facts.imageUUID(*ng.ImageID)))
		}
		cluster.Spec.Topology.Workers.MachineDeployments = append(cluster.Spec.Topology.Workers.MachineDeployments, md)
	}
	clusterYAML, err := MarshalObject(cluster)
	if err != nil {
		return nil, err
	}
	docs := []Document{{Path: "cluster.yaml", Data: clusterYAML}}
	return withKustomization(docs), nil
}

// ClusterClass renders the shared ClusterClass called name and its templates.
func ClusterClass(name string) ([]Document, error) {
	objs, err := clusterclass.Objects(name)
	if err != nil {
		return nil, err
	}
	var docs []Document
	for _, o := range objs {
		data, err := MarshalObject(o)
		if err != nil {
			return nil, err
		}
		gvk := o.GetObjectKind().GroupVersionKind()
		docs = append(docs, Document{Path: lowerKind(gvk.Kind) + ".yaml", Data: data})
	}
	return withKustomization(docs), nil
}

func splitNodeGroups(ngs []intent.NodeGroup) (master intent.NodeGroup, workers []intent.NodeGroup, err error) {
	found := false
	for _, ng := range ngs {
		if ng.Role == intent.RoleMaster {
			if found {
				return master, nil, fmt.Errorf("more than one master nodegroup (%s, %s)", master.Name, ng.Name)
			}
			master, found = ng, true
			continue
		}
		workers = append(workers, ng)
	}
	if !found {
		return master, nil, fmt.Errorf("no master nodegroup")
	}
	// The default worker first, then by name: stable output whatever order
	// the nodegroups were read in.
	sort.SliceStable(workers, func(i, j int) bool {
		if workers[i].IsDefault != workers[j].IsDefault {
			return workers[i].IsDefault
		}
		return workers[i].Name < workers[j].Name
	})
	return master, workers, nil
}

func clusterVariables(in Input) ([]clusterv1.ClusterVariable, error) {
	c, t := &in.Cluster, &in.Template
	masterFlavor := intent.Deref(c.MasterFlavorID)
	if masterFlavor == "" {
		masterFlavor = intent.Deref(t.MasterFlavorID)
	}
	flavor := intent.Deref(c.FlavorID)
	if flavor == "" {
		flavor = intent.Deref(t.FlavorID)
	}
	lb := map[string]any{"enabled": c.MasterLBEnabled}
	vars := []clusterv1.ClusterVariable{
		variableValue(clusterclass.VarClusterIdentityRefName, c.StackID+"-cloud-config"),
		variableValue(clusterclass.VarControlPlaneFlavor, in.Facts.flavorName(masterFlavor)),
		variableValue(clusterclass.VarFlavor, in.Facts.flavorName(flavor)),
		variableValue(clusterclass.VarImageUUID, in.Facts.imageUUID(t.ImageID)),
		variableValue(clusterclass.VarSSHKeyName, intent.Deref(c.Keypair)),
		variableValue(clusterclass.VarAPIServerLoadBalancer, lb),
		variableValue(clusterclass.VarExternalNetworkID, in.Facts.externalNetwork(intent.Deref(t.ExternalNetworkID))),
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
	return vars, nil
}

func (f Facts) flavorName(id string) string {
	if n, ok := f.FlavorNames[id]; ok {
		return n
	}
	return id
}

func (f Facts) imageUUID(id string) string {
	if u, ok := f.ImageUUIDs[id]; ok {
		return u
	}
	return id
}

func (f Facts) externalNetwork(id string) string {
	if f.ExternalNetworkID != "" {
		return f.ExternalNetworkID
	}
	return id
}

func podCIDR(t intent.ClusterTemplate, labels map[string]string) string {
	if intent.Deref(t.NetworkDriver) == "cilium" {
		return labels[schemas.LabelCiliumIpv4pool]
	}
	return labels[schemas.LabelCalicoIpv4pool]
}

func variableValue(name string, v any) clusterv1.ClusterVariable {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // values are strings, bools, numbers and maps of them
	}
	return clusterv1.ClusterVariable{Name: name, Value: apiextensionsv1.JSON{Raw: b}}
}

func int32Ptr(n int64) *int32 { v := int32(n); return &v }

// MarshalObject renders an object as YAML without the fields the API server
// owns (status, creationTimestamp), so that the bytes depend on intent only.
func MarshalObject(o client.Object) ([]byte, error) {
	return marshalClean(o)
}
