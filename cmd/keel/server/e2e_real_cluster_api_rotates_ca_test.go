package server

import (
	"context"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/certificates"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/pki"
)

// PATCH /v1/certificates rotates a cluster's Kubernetes CA on the real
// Cluster API controllers in three phases, each a commit keel rolls out
// before the next: a kubeconfig made before the rotation (as `openstack coe
// cluster config` makes it) keeps working until the last phase and only
// then stops, as does one made in the trust phase (its certificate is the
// old CA's); one made in the sign phase works during and after. At the end
// every Machine was replaced, the workload API server presents a
// certificate the new CA signed and the old one does not verify, Cluster
// API's own kubeconfig trusts the new CA with a certificate it signed, and
// no commit of the repository holds a private key in clear.
func TestRealClusterAPIRotatesCA(t *testing.T) {
	// Minutes of waiting on rollouts: beside the package's other parallel
	// real-Cluster-API tests rather than after them.
	t.Parallel()
	ctx := context.Background()
	in, sc := startRealKeelWith(t, "1.12", nil)
	uuid := newCertCluster(t, sc, "rot")
	cl := waitClusterStatus(t, sc, uuid, "CREATE_COMPLETE")
	oldCA := getCA(t, sc, uuid)
	before := coeKubeconfig(t, sc, uuid, cl.APIAddress)
	mustReach(t, before, "a kubeconfig made before the rotation")
	machinesBefore := clusterMachines(t, in, cl.StackID)

	if r := certificates.Update(ctx, sc, uuid); r.Err != nil {
		t.Fatalf("PATCH /v1/certificates: %v", r.Err)
	}
	duringTrust, duringSign := watchRotation(t, sc, uuid, cl.APIAddress, before)

	if err := reach(before); err == nil || !trustFailure(err) {
		t.Fatalf("a kubeconfig made before the rotation still works after its last phase (%v)", err)
	}
	if err := reach(duringTrust); err == nil || !trustFailure(err) {
		t.Fatalf("a kubeconfig made in the trust phase, with a certificate the old CA signed, still works after the rotation (%v)", err)
	}
	mustReach(t, duringSign, "a kubeconfig made in the sign phase (the new CA signed its certificate), after the rotation")
	newCA := getCA(t, sc, uuid)
	if newCA == oldCA {
		t.Fatal("GET /v1/certificates returns the old CA after the rotation")
	}
	mustReach(t, coeKubeconfig(t, sc, uuid, cl.APIAddress), "a kubeconfig made after the rotation")
	servingCertSignedBy(t, cl.APIAddress, newCA, oldCA)
	capiKubeconfigTrusts(t, in, cl.StackID, newCA)
	for name := range machinesBefore {
		if clusterMachines(t, in, cl.StackID)[name] {
			t.Errorf("Machine %s was not replaced by the rotation", name)
		}
	}
	noPlainPrivateKeyInHistory(t, in.Store.Dir())
}

// servingCertSignedBy checks the workload API server's certificate against
// the new CA alone, and that the old CA alone does not verify it.
func servingCertSignedBy(t *testing.T, api, newCA, oldCA string) {
	t.Helper()
	u, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyServer(u.Host, newCA); err != nil {
		t.Errorf("the workload API server's certificate does not verify with the new CA: %v", err)
	}
	if err := verifyServer(u.Host, oldCA); err == nil {
		t.Error("the workload API server's certificate still verifies with the old CA")
	}
}

// capiKubeconfigTrusts checks that Cluster API's kubeconfig of the cluster
// trusts ca and holds a client certificate ca signed.
func capiKubeconfigTrusts(t *testing.T, in *Instance, stack, ca string) {
	t.Helper()
	var s corev1.Secret
	if err := in.Client.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: stack + "-kubeconfig"}, &s); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(s.Data["value"])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		if !strings.Contains(string(c.CertificateAuthorityData), ca) {
			t.Errorf("Cluster API's kubeconfig does not trust the new CA")
		}
	}
	for _, a := range cfg.AuthInfos {
		if !pki.SignedBy(a.ClientCertificateData, []byte(ca)) {
			t.Errorf("Cluster API's kubeconfig holds a client certificate the new CA did not sign")
		}
	}
}

// noPlainPrivateKeyInHistory greps every commit of the repository.
func noPlainPrivateKeyInHistory(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "log", "--all", "-p", "--format=%H %s").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "PRIVATE KEY-----") {
		t.Fatal("a commit holds a private key in clear")
	}
	for _, phase := range []string{"phase 1 of 3 (trust)", "phase 2 of 3 (sign)", "phase 3 of 3 (finish)"} {
		if !strings.Contains(string(out), "rotate the certificate authority, "+phase) {
			t.Errorf("no commit of the rotation's %s", phase)
		}
	}
}
