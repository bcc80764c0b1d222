package clusterclass

import (
	"context"
	"reflect"
	"testing"
)

// Cluster API's own ClusterClass validation (the admission webhook's
// functions) accepts the class: variable schemas, selectors, JSON patch
// paths, enabledIf and value templates, health checks.
func TestClusterClassPassesClusterAPIValidation(t *testing.T) {
	class, err := testClassOnce()
	if err != nil {
		t.Fatal(err)
	}
	if err := class.ValidateClass(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The reference's 40 variables (39 at v0.38.1 plus
// enableKubeletServingCertificateVerification) all exist under their
// reference names, so that the variable vocabulary stays familiar.
func TestClusterClassDeclaresEveryReferenceVariable(t *testing.T) {
	reference := []string{
		"admissionControlList", "apiServerFloatingIP", "apiServerLoadBalancer", "auditLog", "bootVolume",
		"bootVolumeAvailabilityZone", "clusterIdentityRefName", "containerdConfig", "systemdProxyConfig",
		"controlPlaneAvailabilityZones", "disableAPIServerFloatingIP", "disableAPIServerFloatingIPManaged",
		"externalNetworkId", "controlPlaneFlavor", "flavor", "imageRepository", "imageUUID", "enableKeystoneAuth",
		"nodeCidr", "dnsNameservers", "fixedNetworkId", "fixedSubnetId", "openidConnect", "operatingSystem",
		"aptProxyConfig", "serverGroupId", "isServerGroupDiffFailureDomain", "sshKeyName", "apiServerTLSCipherSuites",
		"kubeletTLSCipherSuites", "apiServerSANs", "hardwareDiskBus", "enableDockerVolume", "dockerVolumeSize",
		"dockerVolumeType", "enableEtcdVolume", "etcdVolumeSize", "etcdVolumeType", "availabilityZone",
		"enableKubeletServingCertificateVerification",
	}
	if len(reference) != 40 {
		t.Fatalf("reference list has %d variables", len(reference))
	}
	declared := map[string]bool{}
	for _, f := range Registry() {
		for _, v := range f.Variables {
			declared[v.Name] = true
		}
	}
	for _, v := range reference {
		if !declared[v] {
			t.Errorf("variable %s of the reference is not declared", v)
		}
	}
}

// The same name gives the same objects: the class is rendered into Git and
// must not churn.
func TestObjectsAreDeterministic(t *testing.T) {
	a, err := Objects("magnum-v1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Objects("magnum-v1")
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two renderings of the same class differ")
	}
}

// Every variable with a default has a default its own schema accepts, and a
// Cluster that sets only the required variables is valid (Cluster API's
// webhook defaults the rest).
func TestOnlyRequiredVariablesAreEnough(t *testing.T) {
	generate(t, tc{})
}
