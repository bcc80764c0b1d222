package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarClusterIdentityRefName names the Secret (<stack_id>-cloud-config) that
// holds the cluster's OpenStack credentials for CAPO.
const VarClusterIdentityRefName = "clusterIdentityRefName"

func clusterIdentity() Feature {
	return Feature{
		Name:   "cluster_identity",
		Values: clusterIdentityValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarClusterIdentityRefName, stringSchema("Secret holding the clouds.yaml CAPO uses for this cluster.", nil)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "clusterIdentityRefName",
			Definitions: []clusterv1.PatchDefinition{
				definition(selectInfraCluster(), fromVariable("replace", "/spec/template/spec/identityRef/name", VarClusterIdentityRefName)),
				definition(selectAllMachines(), fromVariable("replace", "/spec/template/spec/identityRef/name", VarClusterIdentityRefName)),
			},
		}},
	}
}

// clusterIdentityValues: the cloud credential Secret keel renders beside
// the Cluster.
func clusterIdentityValues(in *Inputs) (map[string]any, error) {
	return map[string]any{VarClusterIdentityRefName: in.Cluster.StackID + "-cloud-config"}, nil
}
