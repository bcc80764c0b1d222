package clusterclass

// Registry lists the features of the ClusterClass in the order their patches
// apply. The order is part of the contract: a later patch sees what an
// earlier one wrote (e.g. the operating-system patches must come after the
// containerd ones, or Flatcar workers lose their node-name fix-up).
func Registry() []Feature {
	return []Feature{
		clusterIdentity(),
		flavors(),
		images(),
		sshKey(),
		apiServerLoadBalancer(),
		externalNetwork(),
	}
}
