package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarSSHKeyName is the Nova keypair injected into every machine.
const VarSSHKeyName = "sshKeyName"

func sshKey() Feature {
	empty := ""
	return Feature{
		Name: "ssh_key",
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarSSHKeyName, false, stringSchema("Nova keypair injected into the machines; empty for none.", &empty)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "sshKeyName",
			EnabledIf: `{{ ne .sshKeyName "" }}`,
			Definitions: []clusterv1.PatchDefinition{{
				Selector: selectAllMachines(),
				JSONPatches: []clusterv1.JSONPatch{
					fromVariable("add", "/spec/template/spec/sshKeyName", VarSSHKeyName),
				},
			}},
		}},
	}
}
