package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
)

// VarSSHKeyName is the Nova keypair injected into every machine.
const VarSSHKeyName = "sshKeyName"

func sshKey() Feature {
	return Feature{
		Name:   "ssh_key",
		Values: sshKeyValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarSSHKeyName, optionalString("Nova keypair injected into the machines; empty for none.")),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "sshKeyName",
			// CAPO rejects an empty sshKeyName; leave the field out instead.
			EnabledIf:   `{{ ne .sshKeyName "" }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectAllMachines(), fromVariable("add", "/spec/template/spec/sshKeyName", VarSSHKeyName))},
		}},
	}
}

// sshKeyValues: the cluster's keypair, else the template's.
func sshKeyValues(in *Inputs) (map[string]any, error) {
	keypair := intent.Deref(in.Cluster.Keypair)
	if keypair == "" {
		keypair = intent.Deref(in.Template.KeypairID)
	}
	return map[string]any{VarSSHKeyName: keypair}, nil
}
