// Package clusterclass builds keel's shared ClusterClass and its four
// templates in Go, from a registry of features. Each feature (one file,
// feature_<name>.go) holds its topology variables, the JSON patches that
// write them into the templates, and its tests; registry.go fixes the order in
// which the patches apply, explicitly rather than by link order.
//
// All templates are Cluster API v1beta2 (core, kubeadm bootstrap and control
// plane) except CAPO's, which is infrastructure.cluster.x-k8s.io/v1beta1 and
// handled as unstructured. In v1beta2, kubeadm extraArgs are lists of
// {name, value}: features append to them with "/-" (the base templates seed
// every list a feature appends to) and never address an argument by name.
package clusterclass

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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

// Machine health checks and deletion, as the reference driver sets them:
// a node NotReady or Unknown for 5 minutes is remediated as long as at most
// 80 % of the machines are unhealthy (beyond that the problem is not the
// machines), and volumes get 5 minutes to detach before a machine goes.
const (
	unhealthyTimeoutSeconds      = int32(300)
	maxUnhealthy                 = "80%"
	nodeVolumeDetachTimeoutSecs  = int32(300)
	workerNodeStartupTimeoutSecs = int32(1200)
)

// Feature is one capability of the ClusterClass: the variables it declares
// and the patches that consume them.
type Feature struct {
	Name      string
	Variables []clusterv1.ClusterClassVariable
	Patches   []clusterv1.ClusterClassPatch
	// Values computes the cluster-level values of the feature's variables
	// from a cluster's intent (nil: the feature has none to set). A
	// variable left out keeps the class default.
	Values func(in *Inputs) (map[string]any, error)
}

// Objects returns the ClusterClass named name and its templates, in
// namespace magnum-system: OpenStackClusterTemplate, OpenStackMachineTemplate,
// KubeadmControlPlaneTemplate, KubeadmConfigTemplate, then the ClusterClass.
// The output depends on name only.
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
				HealthCheck: clusterv1.ControlPlaneClassHealthCheck{
					Checks: clusterv1.ControlPlaneClassHealthCheckChecks{UnhealthyNodeConditions: unhealthyNodeConditions()},
					Remediation: clusterv1.ControlPlaneClassHealthCheckRemediation{
						TriggerIf: clusterv1.ControlPlaneClassHealthCheckRemediationTriggerIf{UnhealthyLessThanOrEqualTo: maxUnhealthyPtr()},
					},
				},
				Deletion: clusterv1.ControlPlaneClassMachineDeletionSpec{NodeVolumeDetachTimeoutSeconds: int32Ptr(nodeVolumeDetachTimeoutSecs)},
			},
			Workers: clusterv1.WorkersClass{MachineDeployments: []clusterv1.MachineDeploymentClass{{
				Class: WorkerClass,
				Bootstrap: clusterv1.MachineDeploymentClassBootstrapTemplate{
					TemplateRef: ref(BootstrapAPIVersion, "KubeadmConfigTemplate", name),
				},
				Infrastructure: clusterv1.MachineDeploymentClassInfrastructureTemplate{
					TemplateRef: ref(InfraAPIVersion, "OpenStackMachineTemplate", name),
				},
				HealthCheck: clusterv1.MachineDeploymentClassHealthCheck{
					Checks: clusterv1.MachineDeploymentClassHealthCheckChecks{
						NodeStartupTimeoutSeconds: int32Ptr(workerNodeStartupTimeoutSecs),
						UnhealthyNodeConditions:   unhealthyNodeConditions(),
					},
					Remediation: clusterv1.MachineDeploymentClassHealthCheckRemediation{
						TriggerIf: clusterv1.MachineDeploymentClassHealthCheckRemediationTriggerIf{UnhealthyLessThanOrEqualTo: maxUnhealthyPtr()},
					},
				},
				Deletion: clusterv1.MachineDeploymentClassMachineDeletionSpec{NodeVolumeDetachTimeoutSeconds: int32Ptr(nodeVolumeDetachTimeoutSecs)},
			}}},
		},
	}
	seen := map[string]string{}
	patches := map[string]string{}
	for _, f := range Registry() {
		for _, v := range f.Variables {
			if other, dup := seen[v.Name]; dup {
				return nil, fmt.Errorf("clusterclass: variable %s declared by features %s and %s", v.Name, other, f.Name)
			}
			seen[v.Name] = f.Name
			cc.Spec.Variables = append(cc.Spec.Variables, v)
		}
		for _, p := range f.Patches {
			if other, dup := patches[p.Name]; dup {
				return nil, fmt.Errorf("clusterclass: patch %s declared by features %s and %s", p.Name, other, f.Name)
			}
			patches[p.Name] = f.Name
			cc.Spec.Patches = append(cc.Spec.Patches, p)
		}
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

func unhealthyNodeConditions() []clusterv1.UnhealthyNodeCondition {
	return []clusterv1.UnhealthyNodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: int32Ptr(unhealthyTimeoutSeconds)},
		{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: int32Ptr(unhealthyTimeoutSeconds)},
	}
}

func maxUnhealthyPtr() *intstr.IntOrString { v := intstr.FromString(maxUnhealthy); return &v }

func int32Ptr(n int32) *int32 { return &n }

func ref(apiVersion, kind, name string) clusterv1.ClusterClassTemplateReference {
	return clusterv1.ClusterClassTemplateReference{APIVersion: apiVersion, Kind: kind, Name: name}
}

// Helpers the feature files use to declare variables and patches tersely.

// variable declares a variable. Variables with a default are optional: a
// Cluster that leaves them out gets the default from Cluster API's webhook.
func variable(name string, schema clusterv1.JSONSchemaProps) clusterv1.ClusterClassVariable {
	required := schema.Default == nil
	return clusterv1.ClusterClassVariable{Name: name, Required: &required, Schema: clusterv1.VariableSchema{OpenAPIV3Schema: schema}}
}

func stringSchema(desc string, def *string) clusterv1.JSONSchemaProps {
	s := clusterv1.JSONSchemaProps{Type: "string", Description: desc}
	if def != nil {
		s.Default = jsonValue(*def)
	}
	return s
}

func optionalString(desc string) clusterv1.JSONSchemaProps {
	empty := ""
	return stringSchema(desc, &empty)
}

func boolSchema(desc string, def bool) clusterv1.JSONSchemaProps {
	return clusterv1.JSONSchemaProps{Type: "boolean", Description: desc, Default: jsonValue(def)}
}

func intSchema(desc string, def int64) clusterv1.JSONSchemaProps {
	zero := int64(0)
	return clusterv1.JSONSchemaProps{Type: "integer", Format: "int64", Minimum: &zero, Description: desc, Default: jsonValue(def)}
}

func stringListSchema(desc string) clusterv1.JSONSchemaProps {
	return clusterv1.JSONSchemaProps{Type: "array", Description: desc, Items: &clusterv1.JSONSchemaProps{Type: "string"}, Default: jsonValue([]string{})}
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

func fromTemplate(op, path, tpl string) clusterv1.JSONPatch {
	return clusterv1.JSONPatch{Op: op, Path: path, ValueFrom: &clusterv1.JSONPatchValue{Template: tpl}}
}

// uuidPattern matches an OpenStack resource ID.
const uuidPattern = `^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`

// idOrName renders a CAPO resource parameter from a variable holding an
// OpenStack ID or, where keel could not resolve the name Magnum accepted
// (no OpenStack reachable when the cluster was created), that name: CAPO's
// schema wants an ID in "id" and takes a name only as {"filter":{"name"}}.
func idOrName(v string) string {
	return `{{ if regexMatch "` + uuidPattern + `" .` + v + ` }}{"id": {{ .` + v + ` | toJson }}}` +
		`{{ else }}{"filter": {"name": {{ .` + v + ` | toJson }}}}{{ end }}`
}

func withValue(op, path string, v any) clusterv1.JSONPatch {
	return clusterv1.JSONPatch{Op: op, Path: path, Value: jsonValue(v)}
}

// Paths into the kubeadm templates.
const (
	kcpSpec          = "/spec/template/spec/kubeadmConfigSpec"
	kcpAPIServer     = kcpSpec + "/clusterConfiguration/apiServer"
	kcpAPIServerArgs = kcpAPIServer + "/extraArgs/-"
	// Seeded by the base template, as the API server's.
	kcpControllerManagerArgs = kcpSpec + "/clusterConfiguration/controllerManager/extraArgs/-"
	kcpInitKubelet           = kcpSpec + "/initConfiguration/nodeRegistration/kubeletExtraArgs/-"
	kcpJoinKubelet           = kcpSpec + "/joinConfiguration/nodeRegistration/kubeletExtraArgs/-"
	kctSpec                  = "/spec/template/spec"
	kctJoinKubelet           = kctSpec + "/joinConfiguration/nodeRegistration/kubeletExtraArgs/-"
)

// argFromVariable appends {name, value} to a v1beta2 extraArgs list, the
// value taken from a string variable (toJson quotes it safely).
func argFromVariable(path, name, v string) clusterv1.JSONPatch {
	return fromTemplate("add", path, fmt.Sprintf(`{"name": %q, "value": {{ .%s | toJson }}}`, name, v))
}

// argValue appends a fixed {name, value} to a v1beta2 extraArgs list.
func argValue(path, name, value string) clusterv1.JSONPatch {
	return withValue("add", path, map[string]string{"name": name, "value": value})
}

// fileFromVariable appends a root-owned file whose base64 content is a
// variable.
func fileFromVariable(path, file, permissions, v string) clusterv1.JSONPatch {
	return fromTemplate("add", path, fmt.Sprintf(
		`{"path": %q, "owner": "root:root", "permissions": %q, "encoding": "base64", "content": {{ .%s | toJson }}}`, file, permissions, v))
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

func selectControlPlane() clusterv1.PatchSelector {
	return clusterv1.PatchSelector{APIVersion: ControlPlaneAPIVersion, Kind: "KubeadmControlPlaneTemplate",
		MatchResources: clusterv1.PatchSelectorMatch{ControlPlane: ptrTrue()}}
}

func selectWorkerBootstrap() clusterv1.PatchSelector {
	return clusterv1.PatchSelector{APIVersion: BootstrapAPIVersion, Kind: "KubeadmConfigTemplate",
		MatchResources: clusterv1.PatchSelectorMatch{MachineDeploymentClass: &clusterv1.PatchSelectorMatchMachineDeploymentClass{Names: []string{WorkerClass}}}}
}

// definition is a shorthand for one PatchDefinition.
func definition(sel clusterv1.PatchSelector, ops ...clusterv1.JSONPatch) clusterv1.PatchDefinition {
	return clusterv1.PatchDefinition{Selector: sel, JSONPatches: ops}
}

// apiJSON is the type of schema enums and defaults.
type apiJSON = apiextensionsv1.JSON
