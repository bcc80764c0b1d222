package clusterclass

import (
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarAdmissionControlList is kube-apiserver's --enable-admission-plugins
// (NodeRestriction, plus admission_control_list).
const VarAdmissionControlList = "admissionControlList"

func admissionPlugins() Feature {
	def := "NodeRestriction"
	return Feature{
		Name:   "admission_plugins",
		Values: admissionPluginsValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarAdmissionControlList, stringSchema("Comma-separated admission plugins enabled on kube-apiserver.", &def)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:        "admissionControlList",
			EnabledIf:   `{{ ne .admissionControlList "" }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(), argFromVariable(kcpAPIServerArgs, "enable-admission-plugins", VarAdmissionControlList))},
		}},
	}
}

// admissionPluginsValues: NodeRestriction always, first.
func admissionPluginsValues(in *Inputs) (map[string]any, error) {
	admission := []string{"NodeRestriction"}
	for _, p := range in.List(schemas.LabelAdmissionControlList) {
		if p != "NodeRestriction" {
			admission = append(admission, p)
		}
	}
	return map[string]any{VarAdmissionControlList: strings.Join(admission, ",")}, nil
}
