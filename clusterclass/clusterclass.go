// Package clusterclass builds keel's shared ClusterClass and its four
// templates in Go, from a registry of features. Each feature (one file,
// feature_<name>.go) holds its topology variables, the JSON patches that
// write them into the templates, and its tests; registry.go fixes the order in
// which the patches apply, explicitly rather than by link order.
package clusterclass

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// API groups and versions of the templates.
const (
	InfraAPIVersion        = "infrastructure.cluster.x-k8s.io/v1beta1"
	ControlPlaneAPIVersion = "controlplane.cluster.x-k8s.io/v1beta2"
	BootstrapAPIVersion    = "bootstrap.cluster.x-k8s.io/v1beta2"
)

// WorkerClass is the one MachineDeployment class every nodegroup uses.
const WorkerClass = "default-worker"

// Feature is one capability of the ClusterClass: the variables it declares
// and the patches that consume them.
type Feature struct {
	Name      string
	Variables []clusterv1.ClusterClassVariable
	Patches   []clusterv1.ClusterClassPatch
}

// Objects returns the ClusterClass named name and its templates, in
// namespace magnum-system: OpenStackClusterTemplate, OpenStackMachineTemplate,
// KubeadmControlPlaneTemplate, KubeadmConfigTemplate, then the ClusterClass.
func Objects(name string) ([]client.Object, error) {
	cc := &clusterv1.ClusterClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "ClusterClass"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{
				TemplateRef: ref(InfraAPIVersion, "OpenStackClusterTemplate", name),
			},
			ControlPlane: clusterv1.ControlPlaneClass{
				TemplateRef: ref(ControlPlaneAPIVersion, "KubeadmControlPlaneTemplate", name),
				MachineInfrastructure: clusterv1.ControlPlaneClassMachineInfrastructureTemplate{
					TemplateRef: ref(InfraAPIVersion, "OpenStackMachineTemplate", name),
				},
			},
			Workers: clusterv1.WorkersClass{MachineDeployments: []clusterv1.MachineDeploymentClass{{
				Class: WorkerClass,
				Bootstrap: clusterv1.MachineDeploymentClassBootstrapTemplate{
					TemplateRef: ref(BootstrapAPIVersion, "KubeadmConfigTemplate", name),
				},
				Infrastructure: clusterv1.MachineDeploymentClassInfrastructureTemplate{
					TemplateRef: ref(InfraAPIVersion, "OpenStackMachineTemplate", name),
				},
			}}},
		},
	}
	seen := map[string]string{}
	for _, f := range Registry() {
		for _, v := range f.Variables {
			if other, dup := seen[v.Name]; dup {
				return nil, fmt.Errorf("clusterclass: variable %s declared by features %s and %s", v.Name, other, f.Name)
			}
			seen[v.Name] = f.Name
			cc.Spec.Variables = append(cc.Spec.Variables, v)
		}
		cc.Spec.Patches = append(cc.Spec.Patches, f.Patches...)
	}
	objs := []client.Object{
		openStackClusterTemplate(name),
		openStackMachineTemplate(name),
		kubeadmControlPlaneTemplate(name),
		kubeadmConfigTemplate(name),
		cc,
	}
	return objs, nil
}

func ref(apiVersion, kind, name string) clusterv1.ClusterClassTemplateReference {
	return clusterv1.ClusterClassTemplateReference{APIVersion: apiVersion, Kind: kind, Name: name}
}

func unstructuredObject(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(kube.Namespace)
	return u
}

// Helpers the feature files use to declare variables and patches tersely.

func variable(name string, required bool, schema clusterv1.JSONSchemaProps) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{Name: name, Required: &required, Schema: clusterv1.VariableSchema{OpenAPIV3Schema: schema}}
}

func stringSchema(desc string, def *string) clusterv1.JSONSchemaProps {
	s := clusterv1.JSONSchemaProps{Type: "string", Description: desc}
	if def != nil {
		s.Default = jsonValue(*def)
	}
	return s
}

func boolSchema(desc string, def bool) clusterv1.JSONSchemaProps {
	return clusterv1.JSONSchemaProps{Type: "boolean", Description: desc, Default: jsonValue(def)}
}

func jsonValue(v any) *apiextensionsv1.JSON {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with literal values
	}
	return &apiextensionsv1.JSON{Raw: b}
}

func fromVariable(op, path, v string) clusterv1.JSONPatch {
	return clusterv1.JSONPatch{Op: op, Path: path, ValueFrom: &clusterv1.JSONPatchValue{Variable: v}}
}

func withValue(op, path string, v any) clusterv1.JSONPatch {
	return clusterv1.JSONPatch{Op: op, Path: path, Value: jsonValue(v)}
}

func ptrTrue() *bool { t := true; return &t }

// Selectors of the template a patch targets.

func selectInfraCluster() clusterv1.PatchSelector {
	return clusterv1.PatchSelector{APIVersion: InfraAPIVersion, Kind: "OpenStackClusterTemplate",
		MatchResources: clusterv1.PatchSelectorMatch{InfrastructureCluster: ptrTrue()}}
}

func selectControlPlaneMachines() clusterv1.PatchSelector {
	return clusterv1.PatchSelector{APIVersion: InfraAPIVersion, Kind: "OpenStackMachineTemplate",
		MatchResources: clusterv1.PatchSelectorMatch{ControlPlane: ptrTrue()}}
}

func selectWorkerMachines() clusterv1.PatchSelector {
	return clusterv1.PatchSelector{APIVersion: InfraAPIVersion, Kind: "OpenStackMachineTemplate",
		MatchResources: clusterv1.PatchSelectorMatch{MachineDeploymentClass: &clusterv1.PatchSelectorMatchMachineDeploymentClass{Names: []string{WorkerClass}}}}
}

func selectAllMachines() clusterv1.PatchSelector {
	return clusterv1.PatchSelector{APIVersion: InfraAPIVersion, Kind: "OpenStackMachineTemplate",
		MatchResources: clusterv1.PatchSelectorMatch{ControlPlane: ptrTrue(),
			MachineDeploymentClass: &clusterv1.PatchSelectorMatchMachineDeploymentClass{Names: []string{WorkerClass}}}}
}
