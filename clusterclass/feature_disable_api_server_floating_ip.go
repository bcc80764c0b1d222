package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// disableAPIServerFloatingIP (master_lb_floating_ip_enabled negated) and its
// gate. CAPO's webhook rejects any change of the field, including unset to
// false, so the field is written only when the gate says so: keel sets the
// gate to the value itself (the field appears only to disable the floating
// IP), which is what the reference does for new clusters and keeps clusters
// adopted from the reference (field unset) unchanged.
const (
	VarDisableAPIServerFloatingIP        = "disableAPIServerFloatingIP"
	VarDisableAPIServerFloatingIPManaged = "disableAPIServerFloatingIPManaged"
)

func disableAPIServerFloatingIP() Feature {
	return Feature{
		Name:   "disable_api_server_floating_ip",
		Values: disableAPIServerFloatingIPValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarDisableAPIServerFloatingIP, boolSchema("Do not give the API a floating IP (master_lb_floating_ip_enabled=false).", false)),
			variable(VarDisableAPIServerFloatingIPManaged, boolSchema("Write disableAPIServerFloatingIP into the OpenStackCluster.", false)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "disableAPIServerFloatingIP",
			EnabledIf: `{{ .disableAPIServerFloatingIPManaged }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(),
				fromVariable("add", "/spec/template/spec/disableAPIServerFloatingIP", VarDisableAPIServerFloatingIP))},
		}},
	}
}

func disableAPIServerFloatingIPValues(in *Inputs) (map[string]any, error) {
	enabled, err := in.Bool(schemas.LabelMasterLBFloatingIPEnabled)
	return map[string]any{VarDisableAPIServerFloatingIP: !enabled, VarDisableAPIServerFloatingIPManaged: !enabled}, err
}
